import GRDB

/// Migration `v3-admin-sessions` of `content-server/hub.sqlite` (docs/design/FLEET.md §5.4, §5.6):
/// the fleet admins' sessions, so that they survive a hub restart.
///
/// - `admin_session`: SHA-256 of the session cookie's value (never the value), the user, the
///   session's CSRF token, when it began and when it was last used.
enum HubSessionSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "admin_session") { table in
            table.primaryKey("idHash", .blob)
            table.column("username", .text).notNull()
            table.column("csrf", .text).notNull()
            table.column("createdAt", .datetime).notNull()
            table.column("lastSeenAt", .datetime).notNull()
        }
    }
}
