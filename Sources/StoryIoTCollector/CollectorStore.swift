import Foundation
import GRDB
import StoryBridge

/// What the development collector received, in its own SQLite file. A record delivered twice
/// (same event id and entity id) is stored once and its delivery count goes up.
package final class CollectorStore: Sendable {
    /// One stored record.
    package struct Message: Sendable, Hashable {
        package var sequence: Int
        package var hub: String
        package var eventId: String
        package var entityId: String
        package var body: String
        package var headers: [String: String]
        var receivedAt: Date
        package var deliveries: Int
    }

    private let pool: DatabasePool

    package init(file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        pool = try DatabasePool(path: file.path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-messages") { db in
            try db.create(table: "message") { table in
                table.autoIncrementedPrimaryKey("sequence")
                table.column("hub", .text).notNull()
                table.column("eventId", .text).notNull()
                table.column("entityId", .text).notNull()
                table.column("body", .text).notNull()
                table.column("headers", .text).notNull()
                table.column("receivedAt", .double).notNull()
                table.column("deliveries", .integer).notNull().defaults(to: 1)
                table.uniqueKey(["eventId", "entityId"])
            }
        }
        try migrator.migrate(pool)
    }

    /// Stores a record; returns `true` when it is new, `false` for a duplicate delivery. Written on
    /// GRDB's writer queue, not the caller's thread.
    @discardableResult
    package func store(hub: String, eventId: String, entityId: String, body: String, headers: [String: String]) async throws -> Bool {
        let headerText = JSONValue.object(headers.mapValues(JSONValue.string)).jsonString()
        return try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO message (hub, eventId, entityId, body, headers, receivedAt) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(eventId, entityId) DO UPDATE SET deliveries = deliveries + 1
                    """,
                arguments: [hub, eventId, entityId, body, headerText, Date().timeIntervalSince1970])
            return try Int.fetchOne(
                db, sql: "SELECT deliveries FROM message WHERE eventId = ? AND entityId = ?", arguments: [eventId, entityId]) == 1
        }
    }

    /// Stored records in arrival order, optionally of one event id.
    package func messages(eventId: String? = nil) throws -> [Message] {
        try pool.read { db in
            let rows: [Row]
            if let eventId {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM message WHERE eventId = ? ORDER BY sequence", arguments: [eventId])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM message ORDER BY sequence")
            }
            return rows.map { row in
                let headerText: String = row["headers"]
                let headers = (try? JSONValue.parse(headerText))?.objectValue?.compactMapValues(\.stringValue) ?? [:]
                return Message(
                    sequence: row["sequence"], hub: row["hub"], eventId: row["eventId"], entityId: row["entityId"],
                    body: row["body"], headers: headers, receivedAt: Date(timeIntervalSince1970: row["receivedAt"]),
                    deliveries: row["deliveries"])
            }
        }
    }
}
