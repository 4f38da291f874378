import GRDB

/// Migration `v4-webhooks` of `content-server/hub.sqlite` (docs/design/FLEET.md §5.6, §8):
///
/// - `webhook_delivery`: one row per event and endpoint, written before the first attempt so that
///   a pending delivery survives a restart: the endpoint's index in the configuration and its URL
///   then (a row whose endpoint has since changed is given up), the event's name, the body sent,
///   attempts made, when the next is due, `pending`/`delivered`/`failed` and the last error. Done
///   rows are kept 7 days.
/// - `catalog_seen`: the presentations served as the last scan saw them, one row per
///   presentation and client, with the revision and the `Data` last sent (a `Delete` repeats it).
///   `hub_meta` key `catalogSeeded` says the first scan has filled it.
enum HubWebhookSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "webhook_delivery") { table in
            table.primaryKey("id", .text)
            table.column("endpoint", .integer).notNull()
            table.column("url", .text).notNull()
            table.column("event", .text).notNull()
            table.column("body", .blob).notNull()
            table.column("createdAt", .datetime).notNull()
            table.column("attempts", .integer).notNull()
            table.column("nextAttemptAt", .datetime).notNull()
            table.column("state", .text).notNull()
            table.column("lastError", .text)
        }
        try db.create(index: "webhook_delivery_due", on: "webhook_delivery", columns: ["state", "nextAttemptAt"])
        try db.create(table: "catalog_seen") { table in
            table.column("presentationId", .integer).notNull()
            table.column("clientId", .integer).notNull()
            table.column("revision", .integer).notNull()
            table.column("body", .text).notNull()
            table.primaryKey(["presentationId", "clientId"])
        }
    }
}
