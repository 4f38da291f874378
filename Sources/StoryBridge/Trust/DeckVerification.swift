import Foundation

/// What one check of an installed deck's files found (`storybridge verify`, docs/design/TRUST.md 3.1).
package struct DeckVerification: Sendable, Hashable {
    /// The verdict on the deck.
    package enum Outcome: String, Sendable, Hashable {
        /// Every file is the manifest's.
        case ok
        /// A file differs, is missing or was added; the deck is quarantined.
        case differs
        /// The stored manifest's signature no longer verifies under the held keys document (it was
        /// edited); the deck is quarantined.
        case badSignature = "bad signature"
        /// The files are the manifest's, but its key was revoked since (not quarantined: the files
        /// are still the approved ones).
        case revokedKey = "revoked key"
        /// No record existed (a revision installed before signed packages): its files' hashes were
        /// recorded now, as for an unsigned install.
        case firstHashes = "unsigned (first hashes recorded now)"

        /// Whether this verdict fails the check (exit 65).
        package var fails: Bool { self == .differs || self == .badSignature }
    }

    package var id: Int
    package var revision: Int
    /// The revision's folder under `presentations/`.
    package var folder: String
    package var signed: Bool
    package var keyId: String?
    package var expires: Date?
    package var manifestHash: String
    package var difference: TreeDifference
    package var outcome: Outcome
    /// Whether the deck is quarantined after this check (now, or still from an earlier one).
    package var quarantined: Bool
    package var seconds: Double

    package init(
        id: Int, revision: Int, folder: String, signed: Bool, keyId: String?, expires: Date?, manifestHash: String,
        difference: TreeDifference, outcome: Outcome, quarantined: Bool, seconds: Double
    ) {
        self.id = id
        self.revision = revision
        self.folder = folder
        self.signed = signed
        self.keyId = keyId
        self.expires = expires
        self.manifestHash = manifestHash
        self.difference = difference
        self.outcome = outcome
        self.quarantined = quarantined
        self.seconds = seconds
    }

    /// `17 rev 14 signed (key 5d41…, expires …): ok`, then one line per list of paths.
    package var lines: [String] {
        var head = "\(id) rev \(revision) "
        if signed {
            head += "signed (key \(keyId.map { String($0.prefix(8)) + "…" } ?? "?")"
            if let expires { head += ", expires \(TrustTime.format(expires))" }
            head += ")"
        } else {
            head += "unsigned"
        }
        head += ": \(outcome.rawValue)"
        if quarantined { head += ", quarantined" }
        var lines = [head]
        if !difference.changed.isEmpty { lines.append("  changed: " + difference.changed.map(\.path).joined(separator: ", ")) }
        if !difference.missing.isEmpty { lines.append("  missing: " + difference.missing.joined(separator: ", ")) }
        if !difference.added.isEmpty { lines.append("  added: " + difference.added.joined(separator: ", ")) }
        return lines
    }

    /// `{id, revision, status, signed, manifestHash, changed[], missing[], added[], quarantined, seconds}`.
    package var json: JSONValue {
        [
            "id": .int(id), "revision": .int(revision), "status": .string(outcome.rawValue), "signed": .bool(signed),
            "manifestHash": .string(manifestHash), "keyId": keyId.map(JSONValue.string) ?? .null,
            "expires": expires.map { .string(TrustTime.format($0)) } ?? .null,
            "changed": .array(difference.changed.map { .string($0.path) }), "missing": .array(difference.missing.map(JSONValue.string)),
            "added": .array(difference.added.map(JSONValue.string)), "quarantined": .bool(quarantined),
            "seconds": .double((seconds * 1000).rounded() / 1000),
        ]
    }

    /// What a quarantine records as its reason: the first path named and the counts.
    package static func reason(_ difference: TreeDifference) -> String {
        let first =
            difference.changed.first.map { "'\($0.path)' differs" } ?? difference.missing.first.map { "'\($0)' is missing" }
            ?? difference.added.first.map { "'\($0)' is not in the manifest" } ?? "the files differ"
        let total = difference.paths.count
        return
            "\(first); \(total) file\(total == 1 ? "" : "s") differ (\(difference.changed.count) changed, \(difference.missing.count) missing, \(difference.added.count) added)"
    }
}
