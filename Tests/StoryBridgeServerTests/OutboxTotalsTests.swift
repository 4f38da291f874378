import Foundation
import GRDB
import StoryBridge
import StoryBridgeTesting
import Testing

/// The queued records' number and bytes are kept by triggers (migration `v7-outbox-totals`) and
/// must always equal what counting the queue gives, whatever changes the outbox.
@Suite("Outbox totals")
struct OutboxTotalsTests {
    /// The queue counted and summed row by row, to compare the kept totals with.
    func countedQueue(_ database: StoryBridgeDatabase) async throws -> (records: Int, bytes: Int) {
        try await database.pool.read { db in
            let sql = "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM outbox WHERE status = 'queued'"
            let row = try #require(try Row.fetchOne(db, sql: sql))
            return (row[0], row[1])
        }
    }

    func insert(_ id: String, bytes: Int, status: String, into db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO outbox (recordId, eventId, entityId, sessionId, body, bytes, status, queuedAt)
                VALUES (?, 'story.content.session', ?, ?, '{}', ?, ?, 1790000000)
                """, arguments: [id, id, id, bytes, status])
    }

    @Test("inserts, status changes, body changes and deletes of any status keep the totals equal to a count")
    func totalsFollowEveryChange() async throws {
        let database = try freshDatabase("sb-totals")
        let store = AnalyticsStore(database: database)
        var status = try await store.uploadStatus()
        #expect(status.queued == 0 && status.queuedBytes == 0)
        try await database.pool.write { db in
            for index in 0..<30 {
                try insert("r\(index)", bytes: 10 + index, status: ["queued", "sent", "setAside"][index % 3], into: db)
            }
        }
        var counted = try await countedQueue(database)
        status = try await store.uploadStatus()
        #expect(counted.records == 10)
        #expect(status.queued == counted.records && status.queuedBytes == counted.bytes)

        try await database.pool.write { db in
            // queued -> sent, setAside -> queued, a queued body that grows, a sent body that
            // changes, and deletes of a queued and a sent record.
            try db.execute(sql: "UPDATE outbox SET status = 'sent' WHERE recordId IN ('r0', 'r3')")
            try db.execute(sql: "UPDATE outbox SET status = 'queued' WHERE recordId = 'r2'")
            try db.execute(sql: "UPDATE outbox SET bytes = 500 WHERE recordId = 'r6'")
            try db.execute(sql: "UPDATE outbox SET bytes = 700 WHERE recordId = 'r1'")
            try db.execute(sql: "UPDATE outbox SET attempts = attempts + 1 WHERE recordId = 'r9'")
            try db.execute(sql: "DELETE FROM outbox WHERE recordId IN ('r9', 'r4')")
        }
        counted = try await countedQueue(database)
        status = try await store.uploadStatus()
        #expect(counted.records == 8)
        #expect(status.queued == counted.records && status.queuedBytes == counted.bytes)

        // The uploader's own changes: sent, retried, set aside, then put back in the queue.
        let due = try await store.dueRecords(limit: 100, now: Date())
        #expect(due.count == 8)
        try await store.markSent(due[0].recordId)
        try await store.markRetry(due[1].recordId, error: "503", next: Date())
        try await store.markSetAside(due[2].recordId, error: "400")
        try await store.markSetAside(due[3].recordId, error: "400")
        counted = try await countedQueue(database)
        status = try await store.uploadStatus()
        #expect(counted.records == 5)
        #expect(status.queued == counted.records && status.queuedBytes == counted.bytes)
        #expect(try await store.requeue() == 11)
        counted = try await countedQueue(database)
        status = try await store.uploadStatus()
        #expect(counted.records == 16)
        #expect(status.queued == counted.records && status.queuedBytes == counted.bytes)
    }

    @Test("a transaction that rolls back leaves the totals as they were")
    func rollbackLeavesTotals() async throws {
        let database = try freshDatabase("sb-totals")
        let store = AnalyticsStore(database: database)
        try await database.pool.write { db in try insert("kept", bytes: 40, status: "queued", into: db) }
        struct Abandon: Error {}
        await #expect(throws: Abandon.self) {
            try await database.write { db in
                try insert("lost", bytes: 99, status: "queued", into: db)
                throw Abandon()
            }
        }
        let status = try await store.uploadStatus()
        #expect(status.queued == 1 && status.queuedBytes == 40)
    }

    @Test("a data folder from before the totals gets them from its queue when it is opened")
    func migrationSeedsTotals() async throws {
        let directory = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("sb-totals-\(UUID().uuidString)"))
        try directory.prepare()
        do {
            // A database as version 6 left it: queued records, no totals, no triggers.
            let database = try StoryBridgeDatabase(file: directory.database)
            try await database.pool.write { db in
                try db.execute(
                    sql: """
                        DROP TRIGGER outbox_totals_insert; DROP TRIGGER outbox_totals_delete; DROP TRIGGER outbox_totals_update;
                        DELETE FROM counter WHERE name LIKE 'outbox.queued.%';
                        DELETE FROM grdb_migrations WHERE identifier = 'v7-outbox-totals';
                        """)
                for index in 0..<5 { try insert("old\(index)", bytes: 100, status: index == 4 ? "sent" : "queued", into: db) }
            }
            try database.pool.close()
        }
        let reopened = try StoryBridgeDatabase(file: directory.database)
        #expect(try reopened.appliedMigrations().contains("v7-outbox-totals"))
        let store = AnalyticsStore(database: reopened)
        var status = try await store.uploadStatus()
        #expect(status.queued == 4 && status.queuedBytes == 400)
        try await reopened.pool.write { db in try insert("new", bytes: 1, status: "queued", into: db) }
        status = try await store.uploadStatus()
        #expect(status.queued == 5 && status.queuedBytes == 401)
    }
}
