import Foundation
import GRDB

/// The first step of `audit verify` (docs/design/TRUST.md 4.4, 1): the log read in position order,
/// each entry's hash recomputed and its link to the one before followed. Names edited entries
/// (hash mismatch), deleted ones (a gap in the positions), reordered ones (an entry that links to,
/// and hashes as if it followed, another position than the one before it) and inserted ones (an
/// entry no successor links, or a forged successor's broken link).
struct AuditChainCheck {
    private(set) var findings: [AuditFinding] = []
    private(set) var entries = 0
    private(set) var segments: Set<String> = []
    /// Position of each stored hash, for naming where a link leads.
    private var positionOfHash: [Data: Int] = [:]
    /// Hashes some entry links to (its `previousHash`), and the positions already named.
    private var linked: Set<Data> = []
    private var named: Set<Int> = []
    private var previous: AuditEntry?
    private var stored: [(position: Int, hash: Data)] = []
    /// Entries whose hash does not match their fields, judged in ``finish()``.
    private var mismatched: [AuditEntry] = []
    /// Where the first entry checked is expected: after position 0 and the origin hash, or after
    /// the head of a damaged database that could not be read.
    private var startPosition = 0
    private var startHash = AuditEntry.originHash

    /// Expects the first entry after `position`, linked to `hash`.
    mutating func start(after position: Int, hash: Data) {
        startPosition = position
        startHash = hash
    }

    /// Checks `entry`, the next one in position order.
    mutating func check(_ entry: AuditEntry) {
        entries += 1
        segments.insert(entry.segment)
        linked.insert(entry.previousHash)
        let expectedPosition = (previous?.position ?? startPosition) + 1
        var gap = false
        if entry.position != expectedPosition {
            gap = true
            // The entry before the gap was followed by a deleted one, not inserted.
            if let previous { named.insert(previous.position) }
            let last = entry.position - 1
            findings.append(
                AuditFinding(
                    kind: .deletedEntries, position: expectedPosition,
                    detail: expectedPosition == last ? "position \(last) is missing" : "positions \(expectedPosition)–\(last) are missing"))
        }
        let computed = entry.computedHash()
        let expectedLink = previous?.hash ?? startHash
        let linkTarget = positionOfHash[entry.previousHash]
        if computed != entry.hash {
            // Written at another position? It links to `target` and hashes as the entry after it.
            // Judged once every hash is known: it may link to an entry stored after it.
            named.insert(entry.position)
            mismatched.append(entry)
        } else if entry.previousHash != expectedLink, !gap {
            if let target = linkTarget {
                name(entry.position, .reorderedEntry, "it follows the entry at position \(target), not \(entry.position - 1)")
            } else {
                name(entry.position, .insertedEntry, "its link names no entry of the log (the chain breaks here)")
            }
        }
        positionOfHash[entry.hash] = entry.position
        stored.append((entry.position, entry.hash))
        previous = entry
    }

    /// Names the entries no successor links (other than the head): inserted into the chain.
    /// Entries moved by the same offset at consecutive positions (the entries after an inserted or
    /// deleted one, renumbered) are named once, as a range.
    mutating func finish() {
        var moves: [(position: Int, written: Int)] = []
        for entry in mismatched {
            // Written at another position? After the entry it links to, or one place off (the
            // entries after an inserted or deleted one renumbered).
            var candidates = [entry.position - 1, entry.position + 1]
            if let target = positionOfHash[entry.previousHash] { candidates.insert(target + 1, at: 0) }
            if let written = candidates.first(where: { $0 != entry.position && Self.hash(of: entry, atPosition: $0) == entry.hash }) {
                moves.append((entry.position, written))
            } else {
                name(entry.position, .editedEntry, "its hash does not match its fields")
            }
        }
        var index = 0
        while index < moves.count {
            let first = moves[index]
            let offset = first.written - first.position
            var last = index
            while last + 1 < moves.count, moves[last + 1].position == moves[last].position + 1,
                moves[last + 1].written - moves[last + 1].position == offset
            {
                last += 1
            }
            if last == index {
                name(first.position, .reorderedEntry, "written at position \(first.written)")
            } else {
                for move in moves[index...last] { named.insert(move.position) }
                let places = abs(offset) == 1 ? "one position" : "\(abs(offset)) positions"
                findings.append(
                    AuditFinding(
                        kind: .reorderedEntry, position: first.position,
                        detail: "positions \(first.position)–\(moves[last].position) were each written \(places) "
                            + (offset < 0
                                ? "earlier (renumbered after an entry inserted before them)"
                                : "later (renumbered after an entry deleted before them)")))
            }
            index = last + 1
        }
        for (position, hash) in stored.dropLast() where !linked.contains(hash) && !named.contains(position) {
            name(position, .insertedEntry, "no later entry follows it (written outside the chain)")
        }
        findings.sort { ($0.position ?? 0, $0.kind.rawValue) < ($1.position ?? 0, $1.kind.rawValue) }
    }

    private mutating func name(_ position: Int, _ kind: AuditFinding.Kind, _ detail: String) {
        named.insert(position)
        findings.append(AuditFinding(kind: kind, position: position, detail: detail))
    }

    private static func hash(of entry: AuditEntry, atPosition position: Int) -> Data? {
        var moved = entry
        moved.position = position
        return moved.computedHash()
    }
}
