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
