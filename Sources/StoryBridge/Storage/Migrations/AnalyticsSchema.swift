import GRDB

/// What migration `v2-analytics` creates: sessions, slide and media views, custom events, the
/// upload queue (`outbox`, one row per record with a stable id) and counters; and what
/// `v8-session-lookup` changes in them.
enum AnalyticsSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "session") { table in
            table.primaryKey("id", .text)
            table.column("presentationId", .integer).notNull()
            table.column("viewerId", .text).notNull()
            table.column("userId", .text).notNull()
            table.column("created", .text).notNull()
            table.column("timeZone", .double).notNull()
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
            table.column("address", .text).notNull()
            table.column("duration", .integer).notNull().defaults(to: 0)
            table.column("slidesCount", .integer).notNull().defaults(to: 0)
            table.column("state", .integer).notNull().defaults(to: 0)
            table.column("complete", .boolean).notNull().defaults(to: false)
            table.column("updated", .text).notNull()
        }
        try db.create(index: "session_by_presentation", on: "session", columns: ["presentationId", "userId", "state"])
        try db.create(table: "slideView") { table in
            table.primaryKey("id", .text)
            table.column("sessionId", .text).notNull().references("session", onDelete: .cascade)
            table.column("presentationId", .integer).notNull()
            table.column("slideName", .text).notNull()
            table.column("userId", .text).notNull()
            table.column("duration", .integer).notNull()
            table.column("navigation", .text).notNull()
            table.column("cause", .text).notNull()
            table.column("created", .text).notNull()
            table.column("timeZone", .double).notNull()
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
        }
        try db.create(index: "slideView_by_session", on: "slideView", columns: ["sessionId", "created"])
        try db.create(table: "mediaView") { table in
            table.primaryKey("id", .text)
            table.column("sessionId", .text).notNull().references("session", onDelete: .cascade)
            table.column("presentationId", .integer).notNull()
            table.column("fileName", .text).notNull()
            table.column("userId", .text).notNull()
            table.column("duration", .integer).notNull()
            table.column("created", .text).notNull()
            table.column("timeZone", .double).notNull()
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
        }
        try db.create(table: "customEvent") { table in
            table.primaryKey("id", .text)
            table.column("sessionId", .text).notNull().references("session", onDelete: .cascade)
            table.column("presentationId", .integer).notNull()
            table.column("userId", .text).notNull()
            table.column("key", .text).notNull()
            table.column("value", .text).notNull()
            table.column("created", .text).notNull()
            table.column("timeZone", .double).notNull()
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
            table.uniqueKey(["sessionId", "key"])
        }
        // What the uploader publishes: one row per record, with a stable id.
        try db.create(table: "outbox") { table in
            table.primaryKey("recordId", .text)
            table.column("eventId", .text).notNull()
            table.column("entityId", .text).notNull()
            table.column("sessionId", .text).notNull()
            table.column("body", .text).notNull()
            table.column("bytes", .integer).notNull()
            table.column("status", .text).notNull().defaults(to: "queued")
            table.column("attempts", .integer).notNull().defaults(to: 0)
            table.column("lastError", .text)
            table.column("nextAttemptAt", .double).notNull().defaults(to: 0)
            table.column("queuedAt", .double).notNull()
            table.column("sentAt", .double)
        }
        try db.create(index: "outbox_due", on: "outbox", columns: ["status", "nextAttemptAt"])
        try db.create(table: "counter") { table in
            table.primaryKey("name", .text)
            table.column("value", .integer).notNull().defaults(to: 0)
        }
    }

    /// `v8-session-lookup`.
    static func addUnfinishedSessionIndex(_ db: Database) throws {
        // The unfinished sessions of a user and presentation, newest first, from the index
        // alone (AnalyticsStore.unfinishedSession at every page load that starts a session);
        // it covers what the index it replaces did.
        try db.create(index: "session_unfinished", on: "session", columns: ["presentationId", "userId", "state", "created"])
        try db.drop(index: "session_by_presentation")
    }
}
