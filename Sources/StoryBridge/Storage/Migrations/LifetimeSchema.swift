import GRDB

/// What migration `v6-lifetime` adds for hosts that run for weeks:
///
/// - `session.endedBy`: how a finished session ended, `close` (the page closed the presentation)
///   or `timeout` (its viewer was gone longer than the session timeout); `NULL` while it is not
///   finished (states 0, 3, 4). See ``SessionEnd``.
/// - table `viewer`: the viewers that left memory after being idle, so a tab that comes back
///   continues where it was (``ViewerSnapshot``).
enum LifetimeSchema {
    static func create(_ db: Database) throws {
        try db.alter(table: "session") { table in
            table.add(column: "endedBy", .text)
        }
        try db.create(table: "viewer") { table in
            table.primaryKey("id", .text)
            table.column("state", .text).notNull()
            table.column("lastPageLoad", .text)
            table.column("sessionId", .text)
            table.column("idleSince", .text).notNull()
        }
        try db.create(index: "viewer_by_idleSince", on: "viewer", columns: ["idleSince"])
        try db.create(index: "viewer_by_session", on: "viewer", columns: ["sessionId"])
        try db.create(index: "session_by_state_updated", on: "session", columns: ["state", "updated"])
    }
}
