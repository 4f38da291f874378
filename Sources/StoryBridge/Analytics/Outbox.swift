import Foundation
import GRDB

/// Caps on the upload queue. A record that would pass a cap is not queued; the drop is counted in
/// `upload.dropped.*`, shown by `storybridge upload --status` and logged, never silent. The record
/// itself stays in its table.
public struct OutboxLimits: Sendable, Hashable {
    /// The most records the upload queue holds; a record beyond it is dropped and counted.
    public var maxQueuedRecords: Int
    /// The most bytes of record bodies the upload queue holds; a record beyond it is dropped and counted.
    public var maxQueuedBytes: Int

    /// 1,000,000 records and 1 GiB by default.
    public init(maxQueuedRecords: Int = 1_000_000, maxQueuedBytes: Int = 1 << 30) {
        self.maxQueuedRecords = maxQueuedRecords
        self.maxQueuedBytes = maxQueuedBytes
    }
}

/// A record waiting for (or done with) upload (table `outbox`). Its dates are kept as seconds
/// since 1970.
package struct OutboxRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord {
    package static let databaseTableName = "outbox"
    static let idColumn = CodingKeys.recordId.rawValue

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case recordId, eventId, entityId, sessionId, body, bytes, status, attempts, lastError, nextAttemptAt, queuedAt, sentAt
    }

    package static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    package static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    /// Stable id: `<eventId>:<entityId>`, the same on every attempt, so a collector can drop duplicates.
    package var recordId: String
    /// `story.content.session`, `story.content.slide`, `story.content.mediafile`, `story.content.customevent`,
    /// `story.content.deeplinking.inbound`, `story.content.deeplinking.outbound`.
    package var eventId: String
    /// The session id, slide view id, media view id or custom event id.
    package var entityId: String
    package var sessionId: String
    /// The JSON body published.
    package var body: String
    /// The body's size in bytes (UTF-8), counted against ``OutboxLimits/maxQueuedBytes``.
    package var bytes: Int
    package var status: OutboxStatus
    package var attempts: Int
    package var lastError: String?
    /// Before this it is not tried again.
    package var nextAttemptAt: Date
    /// When it was first queued.
    package var queuedAt: Date
    /// When the collector took it.
    var sentAt: Date?

    /// A newly queued record of `eventId` about `entityId`, due at once.
    init(eventId: String, entityId: String, sessionId: String, body: String, queuedAt: Date) {
        recordId = "\(eventId):\(entityId)"
        self.eventId = eventId
        self.entityId = entityId
        self.sessionId = sessionId
        self.body = body
        bytes = body.utf8.count
        status = .queued
        attempts = 0
        lastError = nil
        nextAttemptAt = Date(timeIntervalSince1970: 0)
        self.queuedAt = queuedAt
        sentAt = nil
    }
}

/// Where a record stands in the upload queue.
package enum OutboxStatus: String, Sendable, Hashable, Codable, DatabaseValueConvertible {
    /// Waiting to be sent (again).
    case queued
    /// The collector answered 2xx.
    case sent
    /// The collector refused it with a 4xx other than 429: kept, counted, listable, re-queueable.
    case setAside
}

/// The upload queue was asked to mark a record it does not hold.
struct UnknownOutboxRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    package let recordId: String
    package var description: String { "the upload queue holds no record '\(recordId)'" }
}

/// A summary of the upload queue.
package struct UploadStatus: Sendable, Hashable {
    package var queued: Int
    package var queuedBytes: Int
    package var sent: Int
    package var setAside: Int
    package var droppedRecords: Int
    package var droppedBytes: Int
    package var lastError: String?
    /// The earliest next attempt of a queued record, if any.
    package var nextAttemptAt: Date?

    package var json: JSONValue {
        [
            "queued": .int(queued), "queuedBytes": .int(queuedBytes), "sent": .int(sent), "setAside": .int(setAside),
            "droppedRecords": .int(droppedRecords), "droppedBytes": .int(droppedBytes),
            "lastError": lastError.map(JSONValue.string) ?? .null,
            "nextAttemptAt": nextAttemptAt.map { .string(AnalyticsFormat.timestamp($0)) } ?? .null,
        ]
    }
}

/// Event ids of the StoryIoT upload (PROTOCOL.md §7).
package enum UploadEventId {
    package static let session = "story.content.session"
    package static let slide = "story.content.slide"
    package static let mediaFile = "story.content.mediafile"
    package static let customEvent = "story.content.customevent"
    package static let deepLinkInbound = "story.content.deeplinking.inbound"
    package static let deepLinkOutbound = "story.content.deeplinking.outbound"
    /// A CRM record a Veeva deck saved in the session (a clickstream record, a createRecord…), one each.
    package static let crmRecord = "story.content.crm.record"
    /// The state an OCE deck saved (`CLMPlayer.saveState`), per presentation and viewer, with the
    /// session it was last saved in.
    package static let oceState = "story.content.oce.state"
}

extension AnalyticsStore {
    private typealias Outbox = OutboxRecord.CodingKeys

    /// Queues a saved session and all its records (inside the caller's transaction). A record
    /// already queued or set aside gets the new body and is queued again; one already sent stays sent.
    func enqueueSession(_ sessionId: String, db: Database) throws {
        guard let session = try SessionRecord.readOne(db, SessionRecord.filter(key: sessionId)) else { return }
        var items: [(eventId: String, entityId: String, json: JSONValue)] = [(UploadEventId.session, session.id, session.json)]
        for view in try SlideViewRecord.readAll(db, SlideViewRecord.filter(SlideViewRecord.CodingKeys.sessionId == sessionId)) {
            items.append((UploadEventId.slide, view.id, view.json))
        }
        for view in try MediaViewRecord.readAll(db, MediaViewRecord.filter(MediaViewRecord.CodingKeys.sessionId == sessionId)) {
            items.append((UploadEventId.mediaFile, view.id, view.json))
        }
        for event in try CustomEventRecord.readAll(db, CustomEventRecord.filter(CustomEventRecord.CodingKeys.sessionId == sessionId)) {
            items.append((UploadEventId.customEvent, event.id, event.json))
        }
        for link in try Self.deepLinks(sessionId: sessionId, db: db) {
            items.append((link.direction.eventId, link.id, link.json))
        }
        for record in try CRMStore.savedRecords(sessionId: sessionId, db: db) {
            items.append((UploadEventId.crmRecord, record.entityId, record.json))
        }
        for state in try OceStateStore.states(sessionId: sessionId, db: db) {
            items.append((UploadEventId.oceState, state.entityId, state.json))
        }
        // Kept by triggers (OutboxTotalsSchema), so a long queue is not counted at every save.
        var queuedCount = try counter(OutboxTotalsSchema.queuedRecords, db: db)
        var queuedBytes = try counter(OutboxTotalsSchema.queuedBytes, db: db)
        let now = clock.now
        for item in items {
            let fresh = OutboxRecord(
                eventId: item.eventId, entityId: item.entityId, sessionId: session.id, body: item.json.jsonString(), queuedAt: now)
            if queuedCount + 1 > limits.maxQueuedRecords || queuedBytes + fresh.bytes > limits.maxQueuedBytes {
                try bump(Self.droppedRecordsCounter, by: 1, db: db)
                try bump(Self.droppedBytesCounter, by: fresh.bytes, db: db)
                continue
            }
            if var existing = try OutboxRecord.readOne(db, OutboxRecord.filter(key: fresh.recordId)) {
                existing.body = fresh.body
                existing.bytes = fresh.bytes
                if existing.status != .sent { existing.status = .queued }
                try existing.update(db)
            } else {
                try fresh.insert(db)
            }
            queuedCount += 1
            queuedBytes += fresh.bytes
        }
    }

    static let droppedRecordsCounter = "upload.dropped.records"
    static let droppedBytesCounter = "upload.dropped.bytes"
    static let failuresCounter = "upload.failures"

    private func bump(_ counter: String, by amount: Int, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO counter (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
            arguments: [counter, amount])
    }

    private func counter(_ name: String, db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE name = ?", arguments: [name]) ?? 0
    }

    /// Queued records whose next attempt is due at `now`, oldest first.
    package func dueRecords(limit: Int, now: Date) async throws -> [OutboxRecord] {
        try await pool.read { db in
            try OutboxRecord.readAll(
                db,
                OutboxRecord.filter(Outbox.status == OutboxStatus.queued && Outbox.nextAttemptAt <= now.timeIntervalSince1970)
                    .order(Outbox.queuedAt, Column.rowID).limit(limit))
        }
    }

    /// Records in one status, oldest first.
    package func outbox(status: OutboxStatus, limit: Int = 1000) async throws -> [OutboxRecord] {
        try await pool.read { db in
            try OutboxRecord.readAll(
                db, OutboxRecord.filter(Outbox.status == status).order(Outbox.queuedAt, Column.rowID).limit(limit))
        }
    }

    /// Marks a record sent (after a 2xx).
    package func markSent(_ recordId: String) async throws {
        let now = clock.now
        try await changeRecord(recordId) { record in
            record.status = .sent
            record.attempts += 1
            record.sentAt = now
            record.lastError = nil
        }
    }

    /// Keeps a record queued for another attempt at `next`.
    package func markRetry(_ recordId: String, error: String, next: Date) async throws {
        try await changeRecord(recordId, countingFailure: true) { record in
            record.attempts += 1
            record.lastError = error
            record.nextAttemptAt = next
        }
    }

    /// Sets a record aside (the collector refused it for good).
    package func markSetAside(_ recordId: String, error: String) async throws {
        try await changeRecord(recordId, countingFailure: true) { record in
            record.status = .setAside
            record.attempts += 1
            record.lastError = error
        }
    }

    private func changeRecord(
        _ recordId: String, countingFailure: Bool = false, _ change: @escaping @Sendable (inout OutboxRecord) -> Void
    ) async throws {
        try await database.write { db in
            guard var record = try OutboxRecord.readOne(db, OutboxRecord.filter(key: recordId)) else {
                throw UnknownOutboxRecordError(recordId: recordId)
            }
            change(&record)
            try record.update(db)
            if countingFailure { try self.bump(Self.failuresCounter, by: 1, db: db) }
        }
    }

    /// Puts set-aside records back in the queue, due at once (all of them when `recordIds` is
    /// nil); returns how many.
    @discardableResult
    package func requeue(_ recordIds: [String]? = nil) async throws -> Int {
        try await database.write { db in
            var setAside = OutboxRecord.filter(Outbox.status == OutboxStatus.setAside)
            if let recordIds { setAside = setAside.filter(keys: recordIds) }
            let records = try OutboxRecord.readAll(db, setAside)
            for var record in records {
                record.status = .queued
                record.nextAttemptAt = Date(timeIntervalSince1970: 0)
                try record.update(db)
            }
            return records.count
        }
    }

    /// The queue's summary.
    package func uploadStatus() async throws -> UploadStatus {
        try await pool.read { db in
            func count(_ status: OutboxStatus) throws -> Int { try OutboxRecord.filter(Outbox.status == status).fetchCount(db) }
            let queued = OutboxRecord.filter(Outbox.status == OutboxStatus.queued)
            let lastError = try OutboxRecord.filter(Outbox.lastError != nil).order(Outbox.nextAttemptAt.desc)
                .select(Outbox.lastError, as: String.self).fetchOne(db)
            let nextAttempt = try queued.select(min(Outbox.nextAttemptAt), as: Double.self).fetchOne(db)
            return UploadStatus(
                queued: try self.counter(OutboxTotalsSchema.queuedRecords, db: db),
                queuedBytes: try self.counter(OutboxTotalsSchema.queuedBytes, db: db),
                sent: try count(.sent), setAside: try count(.setAside),
                droppedRecords: try self.counter(Self.droppedRecordsCounter, db: db),
                droppedBytes: try self.counter(Self.droppedBytesCounter, db: db), lastError: lastError,
                nextAttemptAt: nextAttempt.map(Date.init(timeIntervalSince1970:)))
        }
    }
}
