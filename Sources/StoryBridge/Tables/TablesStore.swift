import Foundation
import GRDB

/// A table content can use: declared in the config file (`tables`), or created by its first entry.
public struct TableDefinition: Sendable, Hashable, Codable {
    /// A field of the schema: `k` the name, `t` the type (1 string, 2 integer, 3 double, 4 bool, 5 date).
    package struct Field: Sendable, Hashable, Codable {
        package var k: String
        package var t: Int
        package init(k: String, t: Int) {
            self.k = k
            self.t = t
        }
    }

    package var id: Int
    package var name: String
    package var schema: [Field]

    package init(id: Int, name: String, schema: [Field] = []) {
        self.id = id
        self.name = name
        self.schema = schema
    }
}

/// Table entries as JSON objects in SQLite, each with a generated `_id`. A stored entry that is
/// no longer a JSON object is a ``CorruptEntryError`` naming it, never silently left out.
package final class TablesStore: Sendable {
    let database: StoryBridgeDatabase
    var pool: DatabasePool { database.pool }
    /// Where the store reads the time it stamps on new tables and entries.
    package let clock: any HostClock

    package init(database: StoryBridgeDatabase, clock: any HostClock = SystemHostClock()) {
        self.database = database
        self.clock = clock
    }

    private typealias Entry = StoredTableEntry.CodingKeys

    /// Declares (or renames and re-schemes) tables.
    func declare(_ definitions: [TableDefinition]) async throws {
        let now = clock.now
        try await database.write { db in try Self.declare(definitions, at: now, db: db) }
    }

    /// Declares tables while the host is being set up, before anything runs concurrently (the
    /// host's initializer is synchronous, as opening the database and migrating it are).
    func declareWhileOpening(_ definitions: [TableDefinition]) throws {
        let now = clock.now
        try database.writeSeparately { db in try Self.declare(definitions, at: now, db: db) }
    }

    private static func declare(_ definitions: [TableDefinition], at now: Date, db: Database) throws {
        for definition in definitions {
            if var stored = try StoredTable.readOne(db, StoredTable.filter(key: definition.id)) {
                stored.name = definition.name
                stored.schema = definition.schema
                try stored.update(db)
            } else {
                try StoredTable(id: definition.id, name: definition.name, schema: definition.schema, created: now).insert(db)
            }
        }
    }

    /// The tables: `[{id, name, schema, created}]`.
    package func tables() async throws -> JSONValue {
        let tables = try await database.read { db in try StoredTable.readAll(db, StoredTable.order(StoredTable.CodingKeys.id)) }
        return .array(tables.map(\.json))
    }

    /// All entries of a table, oldest first.
    package func entries(tableId: Int) async throws -> [[String: JSONValue]] {
        try await database.read { db in
            try StoredTableEntry.readAll(
                db, StoredTableEntry.filter(Entry.tableId == tableId).order(Entry.created, Column.rowID))
        }.map { try $0.object() }
    }

    /// One entry.
    package func entry(tableId: Int, id: String) async throws -> [String: JSONValue]? {
        try await database.read { db in try Self.stored(tableId: tableId, id: id, db: db) }?.object()
    }

    private static func stored(tableId: Int, id: String, db: Database) throws -> StoredTableEntry? {
        try StoredTableEntry.readOne(db, StoredTableEntry.filter(key: [Entry.tableId.rawValue: tableId, Entry.id.rawValue: id]))
    }

    /// Inserts entries in one transaction, giving each an `_id`; creates the table if it is new.
    package func insert(tableId: Int, entries: [[String: JSONValue]]) async throws -> [[String: JSONValue]] {
        let now = clock.now
        return try await database.write { db in
            if try !StoredTable.exists(db, key: tableId) {
                try StoredTable(id: tableId, name: "Table \(tableId)", schema: [], created: now).insert(db)
            }
            return try entries.map { entry in
                var stored = entry
                let id = Self.makeId()
                stored["_id"] = .string(id)
                try StoredTableEntry(tableId: tableId, id: id, body: JSONValue.object(stored).jsonString(), created: now).insert(db)
                return stored
            }
        }
    }

    /// Replaces entries by their `_id` in one transaction and returns them as stored; throws
    /// ``UpdateError`` (and changes nothing) when an entry has no id or names one that does not exist.
    package func update(tableId: Int, entries: [[String: JSONValue]]) async throws -> [[String: JSONValue]] {
        try await database.write { db in
            try entries.map { entry in
                guard let id = entry["_id"]?.stringValue ?? entry["id"]?.stringValue else { throw UpdateError.missingId }
                guard var row = try Self.stored(tableId: tableId, id: id, db: db) else { throw UpdateError.unknownEntry(id) }
                var stored = entry
                stored["_id"] = .string(id)
                row.body = JSONValue.object(stored).jsonString()
                try row.update(db)
                return stored
            }
        }
    }

    /// Deletes entries by id and returns them (missing ids are skipped; a corrupt one is an error
    /// and nothing is deleted).
    package func delete(tableId: Int, ids: [String]) async throws -> [[String: JSONValue]] {
        try await database.write { db in
            var deleted: [[String: JSONValue]] = []
            for id in ids {
                guard let row = try Self.stored(tableId: tableId, id: id, db: db) else { continue }
                deleted.append(try row.object())
                try row.delete(db)
            }
            return deleted
        }
    }

    static func makeId() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<12).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Why an update changed nothing.
    enum UpdateError: Error, Sendable, Equatable {
        case missingId
        case unknownEntry(String)
    }
}

/// A stored table entry that is no longer a JSON object: queries that meet it fail with its id
/// (answered 500) rather than leave it out.
package struct CorruptEntryError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    package let tableId: Int
    package let entryId: String
    /// Why its stored text is not an entry.
    package let reason: String

    package init(tableId: Int, entryId: String, reason: String) {
        self.tableId = tableId
        self.entryId = entryId
        self.reason = reason
    }

    package var description: String { "entry '\(entryId)' of table \(tableId) is stored corrupt: \(reason)" }
    package var errorDescription: String? { description }
}

/// A declared table (table `dataTable`); its schema is kept as JSON.
struct StoredTable: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText {
    static let databaseTableName = "dataTable"
    static let idColumn = CodingKeys.id.rawValue

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, name, schema, created
    }

    var id: Int
    var name: String
    var schema: [TableDefinition.Field]
    var created: Date

    /// As the `tables` command answers it.
    var json: JSONValue {
        [
            "id": .int(id), "name": .string(name),
            "schema": .array(schema.map { ["k": .string($0.k), "t": .int($0.t)] }),
            "created": .string(AnalyticsFormat.timestamp(created)),
        ]
    }
}

/// One entry of a table (table `tableEntry`): its JSON text, kept as written; created in seconds
/// since 1970.
struct StoredTableEntry: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord {
    static let databaseTableName = "tableEntry"
    static let idColumn = CodingKeys.id.rawValue

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case tableId, id, body, created
    }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    var tableId: Int
    var id: String
    var body: String
    var created: Date

    /// The entry; throws ``CorruptEntryError`` when the stored text is not a JSON object.
    func object() throws(CorruptEntryError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw CorruptEntryError(tableId: tableId, entryId: id, reason: "\(error)")
        }
        guard let object = value.objectValue else {
            throw CorruptEntryError(tableId: tableId, entryId: id, reason: "it is \(value.typeDescription), not an object")
        }
        return object
    }
}
