import GRDB

/// Migration `v2-history` of `content-server/hub.sqlite` (docs/design/FLEET.md §5.6): what
/// ``HistoryWriter`` keeps of each kiosk.
///
/// - `beat`: every beat as received, for 24 hours.
/// - `minute`: per kiosk and Unix minute, the beats and the extremes of their figures, and the
///   worst presence seen in that minute; 7 days.
/// - `sync_run`: each scheduled sync run a kiosk reported (once per `lastRunAt`); 7 days.
enum HubHistorySchema {
    static func create(_ db: Database) throws {
        try db.create(table: "beat") { table in
            table.column("deviceId", .text).notNull().references("device")
            table.column("receivedAt", .integer).notNull()
            table.column("json", .blob).notNull()
        }
        try db.create(index: "beat_by_device_received", on: "beat", columns: ["deviceId", "receivedAt"])
        try db.create(index: "beat_by_received", on: "beat", columns: ["receivedAt"])
        try db.create(table: "minute") { table in
            table.column("deviceId", .text).notNull().references("device")
            table.column("minute", .integer).notNull()
            table.column("beats", .integer).notNull()
            table.column("queueMax", .integer)
            table.column("oldestAgeMax", .integer)
            table.column("viewersMax", .integer)
            table.column("freeDiskMin", .integer)
            table.column("residentMax", .integer)
            table.column("presence", .text).notNull()
            table.primaryKey(["deviceId", "minute"])
        }
        try db.create(index: "minute_by_minute", on: "minute", columns: ["minute"])
        try db.create(table: "sync_run") { table in
            table.column("deviceId", .text).notNull().references("device")
            table.column("at", .datetime).notNull()
            table.column("result", .text)
            table.column("exitStatus", .integer)
            table.column("summary", .text)
            table.uniqueKey(["deviceId", "at"])
        }
        try db.create(index: "sync_run_by_at", on: "sync_run", columns: ["at"])
        try db.create(index: "state_change_by_at", on: "state_change", columns: ["at"])
    }
}
