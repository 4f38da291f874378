import Foundation
import GRDB

/// Caps on the upload queue. A record that would pass a cap is not queued; the drop is counted in
/// `upload.dropped.*`, shown by `storybridge upload --status` and logged, never silent. The record
/// itself stays in its table.
public struct OutboxLimits: Sendable, Hashable {
    public var maxQueuedRecords: Int
    public var maxQueuedBytes: Int

    /// 1,000,000 records and 1 GiB by default.
    public init(maxQueuedRecords: Int = 1_000_000, maxQueuedBytes: Int = 1 << 30) {
        self.maxQueuedRecords = maxQueuedRecords
        self.maxQueuedBytes = maxQueuedBytes
    }
}

/// A record waiting for (or done with) upload.
public struct OutboxRecord: Sendable, Hashable {
    /// Stable id: `<eventId>:<entityId>`, the same on every attempt, so a collector can drop duplicates.
    public var recordId: String
    /// `story.content.session`, `story.content.slide`, `story.content.mediafile`, `story.content.customevent`,
    /// `story.content.deeplinking.inbound`, `story.content.deeplinking.outbound`.
    public var eventId: String
    /// The session id, slide view id, media view id or custom event id.
    public var entityId: String
    public var sessionId: String
    /// The JSON body published.
    public var body: String
    public var status: OutboxStatus
    public var attempts: Int
    public var lastError: String?
    /// Seconds since 1970 before which it is not tried again.
    public var nextAttemptAt: Double
}

/// Where a record stands in the upload queue.
public enum OutboxStatus: String, Sendable, Hashable, Codable {
    /// Waiting to be sent (again).
    case queued
    /// The collector answered 2xx.
    case sent
    /// The collector refused it with a 4xx other than 429: kept, counted, listable, re-queueable.
    case setAside
}

/// A summary of the upload queue.
public struct UploadStatus: Sendable, Hashable {
    public var queued: Int
    public var queuedBytes: Int
    public var sent: Int
    public var setAside: Int
    public var droppedRecords: Int
    public var droppedBytes: Int
    public var lastError: String?
    /// The earliest next attempt of a queued record (seconds since 1970), if any.
    public var nextAttemptAt: Double?

    public var json: JSONValue {
        [
            "queued": .int(queued), "queuedBytes": .int(queuedBytes), "sent": .int(sent), "setAside": .int(setAside),
            "droppedRecords": .int(droppedRecords), "droppedBytes": .int(droppedBytes),
            "lastError": lastError.map(JSONValue.string) ?? .null,
            "nextAttemptAt": nextAttemptAt.map { .string(AnalyticsFormat.timestamp(Date(timeIntervalSince1970: $0))) } ?? .null,
        ]
    }
}

/// Event ids of the StoryIoT upload (PROTOCOL.md §7).
public enum UploadEventId {
    public static let session = "story.content.session"
    public static let slide = "story.content.slide"
    public static let mediaFile = "story.content.mediafile"
    public static let customEvent = "story.content.customevent"
    public static let deepLinkInbound = "story.content.deeplinking.inbound"
    public static let deepLinkOutbound = "story.content.deeplinking.outbound"
}

extension AnalyticsStore {
    /// Queues a saved session and all its records (inside the caller's transaction).
    func enqueueSession(_ sessionId: String, db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [sessionId]) else { return }
        let session = Self.session(row)
        var items: [(String, String, JSONValue)] = [(UploadEventId.session, session.id, session.json)]
        for view in try Row.fetchAll(db, sql: "SELECT * FROM slideView WHERE sessionId = ?", arguments: [sessionId]) {
            let record = Self.slideView(view)
            items.append((UploadEventId.slide, record.id, record.json))
        }
        for view in try Row.fetchAll(db, sql: "SELECT * FROM mediaView WHERE sessionId = ?", arguments: [sessionId]) {
            let record = Self.mediaView(view)
            items.append((UploadEventId.mediaFile, record.id, record.json))
        }
        for event in try Row.fetchAll(db, sql: "SELECT * FROM customEvent WHERE sessionId = ?", arguments: [sessionId]) {
            let record = Self.customEvent(event)
            items.append((UploadEventId.customEvent, record.id, record.json))
        }
        for link in try Self.deepLinks(sessionId: sessionId, db: db) {
            items.append((link.direction.eventId, link.id, link.json))
        }
        var queuedCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE status = 'queued'") ?? 0
        var queuedBytes = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM outbox WHERE status = 'queued'") ?? 0
        let now = Date().timeIntervalSince1970
        for (eventId, entityId, json) in items {
            let body = json.jsonString()
            let bytes = body.utf8.count
            if queuedCount + 1 > limits.maxQueuedRecords || queuedBytes + bytes > limits.maxQueuedBytes {
                try bump("upload.dropped.records", by: 1, db: db)
                try bump("upload.dropped.bytes", by: bytes, db: db)
                continue
            }
            try db.execute(
                sql: """
                    INSERT INTO outbox (recordId, eventId, entityId, sessionId, body, bytes, status, queuedAt, nextAttemptAt)
                    VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, 0)
                    ON CONFLICT(recordId) DO UPDATE SET body = excluded.body, bytes = excluded.bytes,
                        status = CASE WHEN outbox.status = 'sent' THEN 'sent' ELSE 'queued' END
                    """,
                arguments: ["\(eventId):\(entityId)", eventId, entityId, session.id, body, bytes, now])
            queuedCount += 1
            queuedBytes += bytes
        }
    }

    private func bump(_ counter: String, by amount: Int, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO counter (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
            arguments: [counter, amount])
    }

    /// Queued records whose next attempt is due, oldest first.
    public func dueRecords(limit: Int, now: Date = Date()) throws -> [OutboxRecord] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM outbox WHERE status = 'queued' AND nextAttemptAt <= ? ORDER BY queuedAt, rowid LIMIT ?",
                arguments: [now.timeIntervalSince1970, limit]
            ).map(Self.outboxRecord)
        }
    }

    /// Records in one status, oldest first.
    public func outbox(status: OutboxStatus, limit: Int = 1000) throws -> [OutboxRecord] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE status = ? ORDER BY queuedAt, rowid LIMIT ?",
                arguments: [status.rawValue, limit]
            ).map(Self.outboxRecord)
        }
    }

    /// Marks a record sent (after a 2xx).
    public func markSent(_ recordId: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE outbox SET status = 'sent', attempts = attempts + 1, sentAt = ?, lastError = NULL WHERE recordId = ?",
                arguments: [Date().timeIntervalSince1970, recordId])
        }
    }

    /// Keeps a record queued for another attempt at `next`.
    public func markRetry(_ recordId: String, error: String, next: Date) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE outbox SET attempts = attempts + 1, lastError = ?, nextAttemptAt = ? WHERE recordId = ?",
                arguments: [error, next.timeIntervalSince1970, recordId])
            try db.execute(sql: "INSERT INTO counter (name, value) VALUES ('upload.failures', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1")
        }
    }

    /// Sets a record aside (the collector refused it for good).
    public func markSetAside(_ recordId: String, error: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE outbox SET status = 'setAside', attempts = attempts + 1, lastError = ? WHERE recordId = ?",
                arguments: [error, recordId])
            try db.execute(sql: "INSERT INTO counter (name, value) VALUES ('upload.failures', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1")
        }
    }

    /// Puts set-aside records back in the queue (all of them when `recordIds` is nil); returns how many.
    @discardableResult
    public func requeue(_ recordIds: [String]? = nil) throws -> Int {
        try pool.write { db in
            if let recordIds {
                for id in recordIds {
                    try db.execute(
                        sql: "UPDATE outbox SET status = 'queued', nextAttemptAt = 0 WHERE recordId = ? AND status = 'setAside'",
                        arguments: [id])
                }
            } else {
                try db.execute(sql: "UPDATE outbox SET status = 'queued', nextAttemptAt = 0 WHERE status = 'setAside'")
            }
            return db.changesCount
        }
    }

    /// The queue's summary.
    public func uploadStatus() throws -> UploadStatus {
        try pool.read { db in
            func count(_ status: OutboxStatus) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE status = ?", arguments: [status.rawValue]) ?? 0
            }
            func counter(_ name: String) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE name = ?", arguments: [name]) ?? 0
            }
            return UploadStatus(
                queued: try count(.queued),
                queuedBytes: try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM outbox WHERE status = 'queued'") ?? 0,
                sent: try count(.sent), setAside: try count(.setAside),
                droppedRecords: try counter("upload.dropped.records"), droppedBytes: try counter("upload.dropped.bytes"),
                lastError: try String.fetchOne(
                    db, sql: "SELECT lastError FROM outbox WHERE lastError IS NOT NULL ORDER BY COALESCE(nextAttemptAt, 0) DESC LIMIT 1"),
                nextAttemptAt: try Double.fetchOne(db, sql: "SELECT MIN(nextAttemptAt) FROM outbox WHERE status = 'queued'"))
        }
    }

    static func outboxRecord(_ row: Row) -> OutboxRecord {
        OutboxRecord(
            recordId: row["recordId"], eventId: row["eventId"], entityId: row["entityId"], sessionId: row["sessionId"],
            body: row["body"], status: OutboxStatus(rawValue: row["status"]) ?? .queued, attempts: row["attempts"],
            lastError: row["lastError"], nextAttemptAt: row["nextAttemptAt"])
    }
}
