import GRDB

/// What migration `v16-oce-state` creates: the state OCE content saves with
/// `CLMPlayer.saveState(state)`, one row per presentation and viewer (the last save wins), with
/// the session it was saved in (it is uploaded with that session).
enum OceStateSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "oceState") { table in
            table.column("presentationId", .integer).notNull()
            table.column("viewerId", .text).notNull()
            // The JSON text of what content passed.
            table.column("state", .text).notNull()
            table.column("sessionId", .text)
            table.column("saved", .double).notNull()
            table.primaryKey(["presentationId", "viewerId"])
        }
        try db.create(index: "oceStateSession", on: "oceState", columns: ["sessionId"])
    }
}
