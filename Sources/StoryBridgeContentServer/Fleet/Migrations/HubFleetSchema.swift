import GRDB

/// Migration `v1-fleet` of `content-server/hub.sqlite` (docs/design/FLEET.md §5.6): the devices
/// and their token hashes, each kiosk's current state, its state changes, and `hub_meta`.
///
/// - `device`: one row per device for ever (revoked rows too: the history names them). A name is
///   unique among devices not revoked (a partial unique index).
/// - `kiosk_state`: the current presence of each device, `new` from `device add` on.
/// - `state_change`: every presence transition with its reason.
/// - `hub_meta`: `devicesVersion`, bumped by each add and revoke.
enum HubFleetSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "device") { table in
            table.primaryKey("id", .text)
            table.column("name", .text).notNull()
            table.column("kind", .text).notNull()
            table.column("secretHash", .blob).notNull()
            table.column("labels", .text).notNull()
            table.column("hostId", .text)
            table.column("createdAt", .datetime).notNull()
            table.column("revokedAt", .datetime)
        }
        try db.execute(sql: "CREATE UNIQUE INDEX device_live_name ON device(name) WHERE revokedAt IS NULL")
        try db.create(table: "kiosk_state") { table in
            table.primaryKey("deviceId", .text).references("device")
            table.column("presence", .text).notNull()
            table.column("since", .datetime).notNull()
            table.column("lastBeatAt", .datetime)
            table.column("intervalSeconds", .integer)
            table.column("hello", .text)
            table.column("lastBeat", .text)
            table.column("lastScreenshotAt", .datetime)
        }
        try db.create(table: "state_change") { table in
            table.column("deviceId", .text).notNull().references("device")
            table.column("at", .datetime).notNull()
            table.column("from", .text).notNull()
            table.column("to", .text).notNull()
            table.column("reason", .text).notNull()
        }
        try db.create(index: "state_change_by_device_at", on: "state_change", columns: ["deviceId", "at"])
        try db.create(table: "hub_meta") { table in
            table.primaryKey("key", .text)
            table.column("value", .text).notNull()
        }
    }
}
