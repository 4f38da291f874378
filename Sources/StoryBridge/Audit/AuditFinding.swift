/// One thing `audit verify` found wrong (docs/design/TRUST.md 4.4): an entry of the log or a row of
/// the analytics tables that is not as the host wrote it, named by its position or its table and key.
package struct AuditFinding: Sendable, Hashable {
    /// What is wrong.
    package enum Kind: String, Sendable, Hashable {
        /// An entry whose hash does not match its fields.
        case editedEntry = "edited entry"
        /// Positions missing from the log.
        case deletedEntries = "deleted entries"
        /// An entry at another place than the one it was written at.
        case reorderedEntry = "reordered entry"
        /// An entry the chain does not lead through: written by someone else than the host.
        case insertedEntry = "inserted entry"
        /// An entry whose changes cannot be applied.
        case unreplayableEntry = "unreplayable entry"
        /// A row whose columns differ from the log's.
        case editedRow = "edited row"
        /// A row the log wrote that is not in the table.
        case deletedRow = "deleted row"
        /// A row in the table the log never wrote.
        case insertedRow = "inserted row"
        /// A checkpoint whose hash is not the log's at its position (the log was rewritten or cut
        /// after it was made), or two different checkpoints of one sequence number.
        case checkpointMismatch = "checkpoint mismatch"
        /// Sequence numbers missing from the checkpoints held elsewhere: positions nobody outside attests.
        case checkpointGap = "checkpoint gap"
        /// A checkpoint that cannot be read or whose signature does not verify.
        case badCheckpoint = "bad checkpoint"
        /// The start-up checks recorded entries lost or changed after they were committed (a
        /// `chain.gap` entry), not acknowledged yet.
        case chainGap = "chain gap"
        /// Entries of a damaged database moved aside that the fresh database's chain does not continue.
        case recoveredEntries = "recovered entries"
    }

    package var kind: Kind
    /// The entry's position (entry findings; for rows, the last entry that wrote the row, if known).
    package var position: Int?
    /// The table (row findings).
    package var table: String?
    /// The row's key, `column=value` joined by `, ` (row findings).
    package var key: String?
    /// What differs, in words.
    package var detail: String

    /// The finding as one line of `audit verify`'s output.
    package var line: String {
        var place: [String] = []
        if let table, let key { place.append("\(table) [\(key)]") }
        if let position { place.append(table == nil ? "position \(position)" : "(entry \(position))") }
        if place.isEmpty { return "\(kind.rawValue): \(detail)" }
        return "\(kind.rawValue): " + place.joined(separator: " ") + (detail.isEmpty ? "" : ": \(detail)")
    }

    /// The finding in `--json`: `{kind, position?, table?, key?, detail}`.
    package var json: JSONValue {
        var members: [String: JSONValue] = ["kind": .string(kind.rawValue), "detail": .string(detail)]
        if let position { members["position"] = .int(position) }
        if let table { members["table"] = .string(table) }
        if let key { members["key"] = .string(key) }
        return .object(members)
    }
}
