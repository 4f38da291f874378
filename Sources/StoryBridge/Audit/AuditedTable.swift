import GRDB

/// A table whose rows the audit log covers (docs/design/TRUST.md 4.1): every change to its rows in
/// scope goes through a store function that appends its entry in the same transaction, and
/// `audit verify` rebuilds it from the log alone.
package struct AuditedTable: Sendable, Hashable {
    /// The table's name.
    package let name: String
    /// The columns that identify a row (its primary key).
    package let key: [String]
    /// The SQL condition of the rows the log covers; `nil` for all of them.
    package let scope: String?

    /// The analytics tables: sessions, slide and media views, custom events, deep links, the CRM
    /// records content saved (not the data set imported from the deck's file, which is content, not
    /// a record of a view) and OCE saved states. Parents before children.
    package static let all: [AuditedTable] = [
        AuditedTable(name: "session", key: ["id"], scope: nil),
        AuditedTable(name: "slideView", key: ["id"], scope: nil),
        AuditedTable(name: "mediaView", key: ["id"], scope: nil),
        AuditedTable(name: "customEvent", key: ["id"], scope: nil),
        AuditedTable(name: "deepLinkEvent", key: ["id"], scope: nil),
        AuditedTable(name: "crmRecord", key: ["presentationId", "objectName", "recordId"], scope: "origin = 'saved'"),
        AuditedTable(name: "oceState", key: ["presentationId", "viewerId"], scope: nil),
    ]

    /// `SELECT * FROM` the table's rows in scope, in key order.
    var selectInScope: String {
        "SELECT * FROM \(name.quotedDatabaseIdentifier)" + (scope.map { " WHERE \($0)" } ?? "")
            + " ORDER BY " + key.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }

    /// The columns of each audited table whose declared type is real, from the schema of `db`.
    static func realColumns(_ db: Database) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for table in all {
            result[table.name] = Set(
                try db.columns(in: table.name).filter { ["DOUBLE", "REAL", "FLOAT"].contains($0.type.uppercased()) }.map(\.name))
        }
        return result
    }
}
