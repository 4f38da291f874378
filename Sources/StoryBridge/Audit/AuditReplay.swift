import Foundation
import GRDB

/// Applies entries' changes to a database with the analytics tables' schema (`audit verify`'s
/// rebuild, docs/design/TRUST.md 4.4, 4): each change of each write an entry records (both forms,
/// ``AuditEntry/writes()``) as the SQL it stands for, with the table and column names checked
/// against the schema first (an edited payload can name nothing else).
struct AuditReplay {
    private let realColumns: [String: Set<String>]
    private let columns: [String: Set<String>]
    /// The last entry that wrote each row, by table and key text, for naming where a row came from.
    private(set) var writtenBy: [String: [String: Int]] = [:]

    init(_ db: Database) throws {
        realColumns = try AuditedTable.realColumns(db)
        var columns: [String: Set<String>] = [:]
        for table in AuditedTable.all { columns[table.name] = Set(try db.columns(in: table.name).map(\.name)) }
        self.columns = columns
    }

    /// Applies the changes of `entry` (of each of its writes, in order); throws a description of
    /// the first that cannot be applied, naming the write when the entry holds several.
    mutating func apply(_ entry: AuditEntry, to db: Database) throws(AuditPayloadError) {
        let writes = try entry.writes()
        for (index, write) in writes.enumerated() {
            do throws(AuditPayloadError) {
                for json in write.changes { try apply(json, position: entry.position, to: db) }
            } catch {
                guard writes.count > 1 || entry.kind == AuditKind.writes else { throw error }
                throw AuditPayloadError("its write \(index + 1) of \(writes.count) (\(write.kind)): \(error.description)")
            }
        }
    }

    /// Applies one change of the entry at `position`.
    private mutating func apply(_ json: JSONValue, position: Int, to db: Database) throws(AuditPayloadError) {
        let change = try AuditChange(json: json, realColumns: realColumns)
        let known = columns[change.table] ?? []
        let named = Set(change.key.keys).union(change.row.keys).union(change.conflict).union(change.replacing)
        if let unknown = named.subtracting(known).sorted().first {
            throw AuditPayloadError("it names no column '\(unknown)' of \(change.table)")
        }
        do {
            try Self.execute(change, db)
        } catch {
            throw AuditPayloadError("its \(change.operation.rawValue) into \(change.table) fails: \(error)")
        }
        note(change, position: position)
    }

    private mutating func note(_ change: AuditChange, position: Int) {
        guard let table = AuditedTable.all.first(where: { $0.name == change.table }) else { return }
        let values = change.key.merging(change.row) { key, _ in key }
        guard table.key.allSatisfy({ values[$0] != nil }) else { return }
        writtenBy[table.name, default: [:]][AuditRows.keyText(table.key.map { ($0, values[$0] ?? .null) })] = position
    }

    private static func execute(_ change: AuditChange, _ db: Database) throws {
        let table = change.table.quotedDatabaseIdentifier
        func assignments(_ values: [String: DatabaseValue]) -> (names: [String], values: [DatabaseValue]) {
            let names = values.keys.sorted()
            return (names, names.map { values[$0] ?? .null })
        }
        let key = assignments(change.key)
        let condition = key.names.map { "\($0.quotedDatabaseIdentifier) IS ?" }.joined(separator: " AND ")
        switch change.operation {
        case .insert, .upsert:
            let row = assignments(change.row)
            var sql =
                "INSERT INTO \(table) (\(row.names.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: row.names.count).joined(separator: ", ") + ")"
            if change.operation == .upsert {
                sql += " ON CONFLICT (\(change.conflict.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) DO "
                sql +=
                    change.replacing.isEmpty
                    ? "NOTHING"
                    : "UPDATE SET "
                        + change.replacing.map { "\($0.quotedDatabaseIdentifier) = excluded.\($0.quotedDatabaseIdentifier)" }.joined(
                            separator: ", ")
            }
            try db.execute(sql: sql, arguments: StatementArguments(row.values))
        case .update:
            let row = assignments(change.row)
            let sets = row.names.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")
            try db.execute(sql: "UPDATE \(table) SET \(sets) WHERE \(condition)", arguments: StatementArguments(row.values + key.values))
        case .delete:
            try db.execute(sql: "DELETE FROM \(table) WHERE \(condition)", arguments: StatementArguments(key.values))
        }
    }
}
