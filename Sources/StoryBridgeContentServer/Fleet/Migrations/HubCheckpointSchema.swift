import GRDB

/// Migration `v5-checkpoints` of `content-server/hub.sqlite` (docs/design/TRUST.md 4.5,
/// docs/design/FLEET.md §5.6): `kiosk_checkpoint`, the audit-log checkpoints kiosks' beats carried,
/// by host id and sequence, with the device that sent each, the position and hash it signs, the
/// signed document as received and when it arrived. The newest 1,000 of each host are kept.
enum HubCheckpointSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "kiosk_checkpoint") { table in
            table.column("hostId", .text).notNull()
            table.column("sequence", .integer).notNull()
            table.column("deviceId", .text).notNull()
            table.column("position", .integer).notNull()
            table.column("hash", .text).notNull()
            table.column("document", .text).notNull()
            table.column("receivedAt", .datetime).notNull()
            table.primaryKey(["hostId", "sequence"])
        }
    }
}
