import Foundation
import GRDB

/// The host's SQLite database (WAL mode, versioned migrations): the presentation catalog, and
/// the analytics records.
public final class StoryBridgeDatabase: Sendable {
    /// The connection pool.
    public let pool: DatabasePool

    /// Opens (creating if needed) the database at `file` and brings its schema up to date.
    public init(file: URL) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: file.path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    /// The schema versions applied so far, in order.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Self.migrator.appliedMigrations(db) }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-catalog") { db in
            try db.create(table: "presentation") { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.column("shortDescription", .text).notNull().defaults(to: "")
                table.column("longDescription", .text).notNull().defaults(to: "")
                table.column("revision", .integer).notNull().defaults(to: 1)
                table.column("sortOrder", .integer).notNull().defaults(to: 0)
                table.column("folder", .text).notNull()
                table.column("sizeBytes", .integer).notNull().defaults(to: 0)
                table.column("fileCount", .integer).notNull().defaults(to: 0)
                table.column("source", .text).notNull().defaults(to: "")
                table.column("installedAt", .datetime).notNull()
            }
            try db.create(table: "slide") { table in
                table.column("presentationId", .integer).notNull()
                    .references("presentation", onDelete: .cascade)
                table.column("name", .text).notNull()
                table.column("title", .text)
                table.column("swipeNext", .text)
                table.column("swipePrevious", .text)
                table.column("links", .text).notNull().defaults(to: "[]")
                table.primaryKey(["presentationId", "name"])
            }
            try db.create(table: "mediaFile") { table in
                table.column("presentationId", .integer).notNull()
                    .references("presentation", onDelete: .cascade)
                table.column("fileName", .text).notNull()
                table.column("title", .text).notNull()
                table.primaryKey(["presentationId", "fileName"])
            }
        }
        return migrator
    }
}
