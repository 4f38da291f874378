import GRDB

/// What migration `v4-deeplinks` creates: the deep links a session opened or was opened by
/// (`deepLinkEvent`), recorded and uploaded with the session.
enum DeepLinkSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "deepLinkEvent") { table in
            table.primaryKey("id", .text)
            table.column("sessionId", .text).notNull().references("session", onDelete: .cascade)
            table.column("presentationId", .integer).notNull()
            table.column("userId", .text).notNull()
            table.column("direction", .text).notNull()
            table.column("uri", .text).notNull()
            table.column("source", .text).notNull()
            table.column("parameters", .text).notNull()
            table.column("created", .text).notNull()
            table.column("timeZone", .double).notNull()
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
        }
        try db.create(index: "deepLinkEvent_by_session", on: "deepLinkEvent", columns: ["sessionId", "created"])
    }
}
