import GRDB

/// What migration `v7-outbox-totals` adds: the number and bytes of queued outbox records, kept
/// as two rows of the `counter` table by triggers on `outbox`, so the queue's limits are checked
/// without counting the queue. Before it, saving a session counted and summed every queued
/// record: with the collector out of reach for long, each saved session cost a scan of a queue
/// that only grew (a host with 18,000 queued sessions spent most of its time there).
///
/// The triggers run inside the transaction that changes `outbox`, so the totals are exactly as
/// durable as the records; the migration seeds them from the records already there.
enum OutboxTotalsSchema {
    /// Counter of queued records.
    static let queuedRecords = "outbox.queued.records"
    /// Counter of the bytes of queued records' bodies.
    static let queuedBytes = "outbox.queued.bytes"

    static func create(_ db: Database) throws {
        let queued = "'\(OutboxStatus.queued.rawValue)'"
        try db.execute(
            sql: """
                INSERT INTO counter (name, value) SELECT ?, COUNT(*) FROM outbox WHERE status = \(queued)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value;
                INSERT INTO counter (name, value) SELECT ?, COALESCE(SUM(bytes), 0) FROM outbox WHERE status = \(queued)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value;
                """, arguments: [queuedRecords, queuedBytes])
        try db.execute(
            sql: """
                CREATE TRIGGER outbox_totals_insert AFTER INSERT ON outbox WHEN NEW.status = \(queued) BEGIN
                    UPDATE counter SET value = value + 1 WHERE name = '\(queuedRecords)';
                    UPDATE counter SET value = value + NEW.bytes WHERE name = '\(queuedBytes)';
                END;
                CREATE TRIGGER outbox_totals_delete AFTER DELETE ON outbox WHEN OLD.status = \(queued) BEGIN
                    UPDATE counter SET value = value - 1 WHERE name = '\(queuedRecords)';
                    UPDATE counter SET value = value - OLD.bytes WHERE name = '\(queuedBytes)';
                END;
                CREATE TRIGGER outbox_totals_update AFTER UPDATE OF status, bytes ON outbox BEGIN
                    UPDATE counter SET value = value + (NEW.status = \(queued)) - (OLD.status = \(queued))
                        WHERE name = '\(queuedRecords)';
                    UPDATE counter
                        SET value = value + (CASE WHEN NEW.status = \(queued) THEN NEW.bytes ELSE 0 END)
                            - (CASE WHEN OLD.status = \(queued) THEN OLD.bytes ELSE 0 END)
                        WHERE name = '\(queuedBytes)';
                END;
                """)
    }
}
