import Foundation

/// The checkpoints step of `audit verify` (docs/design/TRUST.md 4.4, 2): the host's own checkpoints
/// (table `auditCheckpoint`) and those held elsewhere (`--checkpoints FILE`, from the collector)
/// checked against the log. A checkpoint held elsewhere whose hash is not the log's at its position
/// names a chain rewritten after it was uploaded, even when the rewriter re-signed the local
/// checkpoints with the host's own key; a sequence number missing from those held is a gap.
struct AuditCheckpointCheck {
    /// A checkpoint read, with whether its signature verifies.
    private struct Read {
        var checkpoint: AuditCheckpoint
        var signatureValid: Bool
    }

    private(set) var findings: [AuditFinding] = []
    /// Local checkpoints, checkpoints held elsewhere (of this host) and how many of those the log matches.
    private(set) var local = 0
    private(set) var external = 0
    private(set) var matched = 0

    private var localRead: [(record: AuditCheckpointRecord, read: Read)] = []
    private var externalRead: [Read] = []
    /// Positions whose hashes the checkpoints state, and what the log has there.
    private var needed: Set<Int> = []
    private var hashes: [Int: (segment: String, hash: Data)] = [:]
    private var lastPosition = 0

    /// The host's own `records` and the `documents` held elsewhere; only those of `hostId` (when
    /// nil: of the host the local checkpoints name, else all) are checked.
    init(local records: [AuditCheckpointRecord], external documents: [JSONValue], hostId: String?) {
        local = records.count
        for record in records {
            do {
                let parsed = try AuditCheckpoint.read(try JSONValue.parse(record.document))
                localRead.append((record, Read(checkpoint: parsed.checkpoint, signatureValid: parsed.signatureValid)))
                needed.insert(parsed.checkpoint.position)
            } catch {
                findings.append(
                    AuditFinding(
                        kind: .badCheckpoint, position: record.position,
                        detail: "local checkpoint \(record.sequence) cannot be read: \(error)"))
            }
        }
        let host = hostId?.replacingOccurrences(of: "-", with: "") ?? localRead.first?.read.checkpoint.hostId
        var seen: [Int: Read] = [:]
        for (index, document) in documents.enumerated() {
            let parsed: (checkpoint: AuditCheckpoint, signatureValid: Bool)
            do {
                parsed = try AuditCheckpoint.read(document)
            } catch {
                findings.append(AuditFinding(kind: .badCheckpoint, detail: "checkpoint \(index + 1) of the file: \(error)"))
                continue
            }
            if let host, parsed.checkpoint.hostId != host { continue }
            let read = Read(checkpoint: parsed.checkpoint, signatureValid: parsed.signatureValid)
            if let earlier = seen[read.checkpoint.sequence] {
                if earlier.checkpoint != read.checkpoint, earlier.signatureValid, read.signatureValid {
                    findings.append(
                        AuditFinding(
                            kind: .checkpointMismatch, position: read.checkpoint.position,
                            detail: "two different checkpoints are numbered \(read.checkpoint.sequence), both signed by the host"))
                }
                continue
            }
            seen[read.checkpoint.sequence] = read
            externalRead.append(read)
            needed.insert(read.checkpoint.position)
        }
        external = externalRead.count
        externalRead.sort { $0.checkpoint.sequence < $1.checkpoint.sequence }
    }

    /// Notes `entry`, the next one of the log in position order.
    mutating func saw(_ entry: AuditEntry) {
        lastPosition = max(lastPosition, entry.position)
        if needed.contains(entry.position) { hashes[entry.position] = (entry.segment, entry.hash) }
    }

    /// Checks every checkpoint against what the log held at its position, and the sequence of
    /// those held elsewhere for gaps.
    mutating func finish() {
        for (record, read) in localRead {
            let checkpoint = read.checkpoint
            if !read.signatureValid {
                name(.badCheckpoint, checkpoint.position, "local checkpoint \(record.sequence): its signature does not verify")
            } else if checkpoint.sequence != record.sequence || checkpoint.position != record.position || checkpoint.hash != record.hash {
                name(.badCheckpoint, record.position, "local checkpoint \(record.sequence): its row differs from its signed document")
            } else if let problem = problem(with: checkpoint) {
                name(.checkpointMismatch, checkpoint.position, "local checkpoint \(checkpoint.sequence) \(problem)")
            }
        }
        var previous: AuditCheckpoint?
        for read in externalRead {
            let checkpoint = read.checkpoint
            guard read.signatureValid else {
                name(
                    .badCheckpoint, checkpoint.position,
                    "uploaded checkpoint \(checkpoint.sequence): its signature does not verify (not made by host \(checkpoint.hostId))")
                continue
            }
            if let problem = problem(with: checkpoint) {
                name(
                    .checkpointMismatch, checkpoint.position,
                    "uploaded checkpoint \(checkpoint.sequence) \(problem) (the log was changed after the checkpoint left the host)")
            } else {
                matched += 1
            }
            let expected = (previous?.sequence ?? 0) + 1
            if checkpoint.sequence > expected {
                let first = (previous?.position ?? 0) + 1
                let sequences =
                    checkpoint.sequence - 1 == expected ? "sequence \(expected)" : "sequences \(expected)–\(checkpoint.sequence - 1)"
                let positions =
                    checkpoint.previousPosition >= first
                    ? " (positions \(first)–\(checkpoint.previousPosition) unattested)" : ""
                name(.checkpointGap, first, "\(sequences) missing\(positions)")
            } else if let previous, checkpoint.previousPosition != previous.position || checkpoint.previousHash != previous.hash {
                name(
                    .checkpointGap, previous.position + 1,
                    "checkpoint \(checkpoint.sequence) does not follow checkpoint \(previous.sequence): it names position \(checkpoint.previousPosition), not \(previous.position)"
                )
            }
            previous = checkpoint
        }
        findings.sort { ($0.position ?? 0) < ($1.position ?? 0) }
    }

    /// What is wrong with `checkpoint` against the log, in words completing "checkpoint N …".
    private func problem(with checkpoint: AuditCheckpoint) -> String? {
        guard let held = hashes[checkpoint.position] else {
            return "attests position \(checkpoint.position), which the log does not hold (it ends at \(lastPosition))"
        }
        if held.hash != checkpoint.hash || held.segment != checkpoint.segment {
            return
                "states hash \(checkpoint.hash.auditHex.prefix(16))… at position \(checkpoint.position); the log's entry there has \(held.hash.auditHex.prefix(16))…"
        }
        return nil
    }

    private mutating func name(_ kind: AuditFinding.Kind, _ position: Int, _ detail: String) {
        findings.append(AuditFinding(kind: kind, position: position, detail: detail))
    }
}
