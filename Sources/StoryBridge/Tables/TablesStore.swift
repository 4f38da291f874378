import Foundation
import GRDB

/// A table content can use: declared in the config file (`tables`), or created by its first entry.
public struct TableDefinition: Sendable, Hashable, Codable {
    /// A field of the schema: `k` the name, `t` the type (1 string, 2 integer, 3 double, 4 bool, 5 date).
    public struct Field: Sendable, Hashable, Codable {
        public var k: String
        public var t: Int
        public init(k: String, t: Int) {
            self.k = k
            self.t = t
        }
    }

    public var id: Int
    public var name: String
    public var schema: [Field]

    public init(id: Int, name: String, schema: [Field] = []) {
        self.id = id
        self.name = name
        self.schema = schema
    }
}

/// Table entries as JSON objects in SQLite, each with a generated `_id`.
public final class TablesStore: Sendable {
    let pool: DatabasePool

    public init(database: StoryBridgeDatabase) {
        pool = database.pool
    }

    /// Declares (or renames and re-schemes) tables.
    public func declare(_ definitions: [TableDefinition]) throws {
        try pool.write { db in
            for definition in definitions {
                let schema = String(decoding: try JSONEncoder().encode(definition.schema), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO dataTable (id, name, schema, created) VALUES (?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET name = excluded.name, schema = excluded.schema
                        """, arguments: [definition.id, definition.name, schema, AnalyticsFormat.timestamp(Date())])
            }
        }
    }

    /// The tables: `[{id, name, schema, created}]`.
    public func tables() throws -> JSONValue {
        try pool.read { db in
            .array(
                try Row.fetchAll(db, sql: "SELECT * FROM dataTable ORDER BY id").map { row in
                    let schemaText: String = row["schema"]
                    return [
                        "id": .int(row["id"]), "name": .string(row["name"]),
                        "schema": (try? JSONValue.parse(schemaText)) ?? [], "created": .string(row["created"]),
                    ]
                })
        }
    }

    /// All entries of a table, oldest first.
    public func entries(tableId: Int) throws -> [[String: JSONValue]] {
        try pool.read { db in
            try String.fetchAll(db, sql: "SELECT body FROM tableEntry WHERE tableId = ? ORDER BY created, rowid", arguments: [tableId])
                .compactMap { try? JSONValue.parse($0).objectValue }
        }
    }

    /// One entry.
    public func entry(tableId: Int, id: String) throws -> [String: JSONValue]? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM tableEntry WHERE tableId = ? AND id = ?", arguments: [tableId, id])
                .flatMap { try? JSONValue.parse($0).objectValue }
        }
    }

    /// Inserts entries in one transaction, giving each an `_id`; creates the table if it is new.
    public func insert(tableId: Int, entries: [[String: JSONValue]]) throws -> [[String: JSONValue]] {
        try pool.write { db in
            try self.ensureTable(tableId, db: db)
            return try entries.map { entry in
                var stored = entry
                let id = Self.makeId()
                stored["_id"] = .string(id)
                try db.execute(
                    sql: "INSERT INTO tableEntry (tableId, id, body, created) VALUES (?, ?, ?, ?)",
                    arguments: [tableId, id, JSONValue.object(stored).jsonString(), Date().timeIntervalSince1970])
                return stored
            }
        }
    }

    /// Replaces entries by their `_id` in one transaction and returns them as stored; throws
    /// ``UpdateError`` (and changes nothing) when an entry has no id or names one that does not exist.
    public func update(tableId: Int, entries: [[String: JSONValue]]) throws -> [[String: JSONValue]] {
        try pool.write { db in
            try entries.map { entry in
                guard let id = entry["_id"]?.stringValue ?? entry["id"]?.stringValue else { throw UpdateError.missingId }
                var stored = entry
                stored["_id"] = .string(id)
                try db.execute(
                    sql: "UPDATE tableEntry SET body = ? WHERE tableId = ? AND id = ?",
                    arguments: [JSONValue.object(stored).jsonString(), tableId, id])
                if db.changesCount == 0 { throw UpdateError.unknownEntry(id) }
                return stored
            }
        }
    }

    /// Deletes entries by id and returns them (missing ids are skipped).
    public func delete(tableId: Int, ids: [String]) throws -> [[String: JSONValue]] {
        try pool.write { db in
            var deleted: [[String: JSONValue]] = []
            for id in ids {
                if let body = try String.fetchOne(
                    db, sql: "SELECT body FROM tableEntry WHERE tableId = ? AND id = ?", arguments: [tableId, id]),
                    let entry = try? JSONValue.parse(body).objectValue
                {
                    try db.execute(sql: "DELETE FROM tableEntry WHERE tableId = ? AND id = ?", arguments: [tableId, id])
                    deleted.append(entry)
                }
            }
            return deleted
        }
    }

    private func ensureTable(_ id: Int, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO dataTable (id, name, created) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
            arguments: [id, "Table \(id)", AnalyticsFormat.timestamp(Date())])
    }

    static func makeId() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<12).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Why an update changed nothing.
    public enum UpdateError: Error, Sendable, Equatable {
        case missingId
        case unknownEntry(String)
    }
}
