import GRDB

/// Migration `v6-screenshots` of `content-server/hub.sqlite` (docs/design/FLEET.md §9.3):
/// `kiosk_screenshot`, the last screenshot of each kiosk (its PNG, size, when the kiosk took it
/// and when the hub received it), kept across restarts; `kiosk_state.lastScreenshotAt` says when.
enum HubScreenshotSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "kiosk_screenshot") { table in
            table.primaryKey("deviceId", .text).references("device")
            table.column("png", .blob).notNull()
            table.column("width", .integer).notNull()
            table.column("height", .integer).notNull()
            table.column("takenAt", .text).notNull()
            table.column("receivedAt", .datetime).notNull()
        }
    }
}
