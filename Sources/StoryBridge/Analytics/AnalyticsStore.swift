import Foundation
import GRDB

/// The analytics records in SQLite: sessions, slide views, media views, custom events, and the
/// outbox the uploader publishes from. Every write is committed before it returns, so a record is
/// durable before the command that caused it is answered.
public final class AnalyticsStore: Sendable {
    public let database: StoryBridgeDatabase
    /// Caps on what may wait in the outbox.
    public let limits: OutboxLimits

    public init(database: StoryBridgeDatabase, limits: OutboxLimits = OutboxLimits()) {
        self.database = database
        self.limits = limits
    }

    var pool: DatabasePool { database.pool }

    // MARK: Sessions

    /// Stores a new session.
    public func insert(_ session: SessionRecord) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (id, presentationId, viewerId, userId, created, timeZone, latitude, longitude,
                                         address, duration, slidesCount, state, complete, updated)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.id, session.presentationId, session.viewerId, session.userId,
                    AnalyticsFormat.timestamp(session.stamp.created), session.stamp.timeZone, session.stamp.latitude,
                    session.stamp.longitude, session.address, session.duration, session.slidesCount,
                    session.state.rawValue, session.complete, AnalyticsFormat.timestamp(Date()),
                ])
        }
    }

    /// One session, if it exists.
    public func session(id: String) throws -> SessionRecord? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]).map(Self.session)
        }
    }

    /// Sessions, newest first, optionally of one user or presentation.
    public func sessions(userId: String? = nil, presentationId: Int? = nil, limit: Int = 10_000) throws -> [SessionRecord] {
        try pool.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let userId { conditions.append("userId = ?"); _ = arguments.append(contentsOf: [userId]) }
            if let presentationId { conditions.append("presentationId = ?"); _ = arguments.append(contentsOf: [presentationId]) }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            _ = arguments.append(contentsOf: [limit])
            return try Row.fetchAll(
                db, sql: "SELECT * FROM session \(filter) ORDER BY created DESC, rowid DESC LIMIT ?", arguments: arguments
            ).map(Self.session)
        }
    }

    /// The newest unfinished session (state 0, 3 or 4) of a user and presentation, skipping `active` ones.
    public func unfinishedSession(presentationId: Int, userId: String, excluding active: Set<String>) throws -> SessionRecord? {
        try sessions(userId: userId, presentationId: presentationId, limit: 50)
            .first { $0.state.isUnfinished && !active.contains($0.id) }
    }

    /// Changes a session's state. Moving to "saved" queues the session and all its records for
    /// upload, in the same transaction.
    public func setState(_ state: SessionState, sessionId: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE session SET state = ?, updated = ? WHERE id = ?",
                arguments: [state.rawValue, AnalyticsFormat.timestamp(Date()), sessionId])
            if state == .saved { try self.enqueueSession(sessionId, db: db) }
        }
    }

    /// Sets a session's `complete` flag.
    public func markComplete(sessionId: String) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE session SET complete = 1, updated = ? WHERE id = ?", arguments: [AnalyticsFormat.timestamp(Date()), sessionId])
        }
    }

    /// Moves what was recorded in `from` into `into` (a restored session) and deletes `from`.
    public func merge(_ from: String, into: String) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE slideView SET sessionId = ? WHERE sessionId = ?", arguments: [into, from])
            try db.execute(sql: "UPDATE mediaView SET sessionId = ? WHERE sessionId = ?", arguments: [into, from])
            try db.execute(sql: "UPDATE deepLinkEvent SET sessionId = ? WHERE sessionId = ?", arguments: [into, from])
            // Keys set in the newer session win.
            try db.execute(
                sql: "DELETE FROM customEvent WHERE sessionId = ? AND key IN (SELECT key FROM customEvent WHERE sessionId = ?)",
                arguments: [into, from])
            try db.execute(sql: "UPDATE customEvent SET sessionId = ? WHERE sessionId = ?", arguments: [into, from])
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [from])
            try self.refreshTotals(into, db: db)
            try db.execute(sql: "UPDATE session SET state = 0, updated = ? WHERE id = ?", arguments: [AnalyticsFormat.timestamp(Date()), into])
        }
    }

    // MARK: Records

    /// Stores a slide view and updates its session's duration and slide count.
    public func insert(_ view: SlideViewRecord) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO slideView (id, sessionId, presentationId, slideName, userId, duration, navigation, cause,
                                           created, timeZone, latitude, longitude)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    view.id, view.sessionId, view.presentationId, view.slideName, view.userId, view.duration,
                    view.navigation, view.cause, AnalyticsFormat.timestamp(view.stamp.created), view.stamp.timeZone,
                    view.stamp.latitude, view.stamp.longitude,
                ])
            try self.refreshTotals(view.sessionId, db: db)
        }
    }

    /// Stores a media view.
    public func insert(_ view: MediaViewRecord) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mediaView (id, sessionId, presentationId, fileName, userId, duration, created, timeZone, latitude, longitude)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    view.id, view.sessionId, view.presentationId, view.fileName, view.userId, view.duration,
                    AnalyticsFormat.timestamp(view.stamp.created), view.stamp.timeZone, view.stamp.latitude, view.stamp.longitude,
                ])
        }
    }

    /// Sets a custom event: one per key per session, a later value replaces the earlier one.
    public func upsert(_ event: CustomEventRecord) throws {
        try pool.write { db in try self.upsert(event, db: db) }
    }

    func upsert(_ event: CustomEventRecord, db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO customEvent (id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(sessionId, key) DO UPDATE SET value = excluded.value, created = excluded.created
                """)
        try statement.execute(
            arguments: [
                event.id, event.sessionId, event.presentationId, event.userId, event.key, event.value,
                AnalyticsFormat.timestamp(event.stamp.created), event.stamp.timeZone, event.stamp.latitude, event.stamp.longitude,
            ])
    }

    /// The value of a custom event.
    public func customEventValue(sessionId: String, key: String) throws -> String? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM customEvent WHERE sessionId = ? AND key = ?", arguments: [sessionId, key])
        }
    }

    /// Deletes a custom event; returns whether it existed.
    @discardableResult
    public func deleteCustomEvent(sessionId: String, key: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM customEvent WHERE sessionId = ? AND key = ?", arguments: [sessionId, key])
            return db.changesCount > 0
        }
    }

    /// All custom events of a session.
    public func customEvents(sessionId: String) throws -> [CustomEventRecord] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM customEvent WHERE sessionId = ? ORDER BY key", arguments: [sessionId])
                .map(Self.customEvent)
        }
    }

    /// The slide views of a session, oldest first.
    public func slideViews(sessionId: String) throws -> [SlideViewRecord] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM slideView WHERE sessionId = ? ORDER BY created, rowid", arguments: [sessionId])
                .map(Self.slideView)
        }
    }

    /// The media views of a session, oldest first.
    public func mediaViews(sessionId: String) throws -> [MediaViewRecord] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mediaView WHERE sessionId = ? ORDER BY created, rowid", arguments: [sessionId])
                .map(Self.mediaView)
        }
    }

    // MARK: Row mapping

    private func refreshTotals(_ sessionId: String, db: Database) throws {
        try db.execute(
            sql: """
                UPDATE session SET duration = (SELECT COALESCE(SUM(duration), 0) FROM slideView WHERE sessionId = ?1),
                                   slidesCount = (SELECT COUNT(*) FROM slideView WHERE sessionId = ?1),
                                   updated = ?2
                WHERE id = ?1
                """, arguments: [sessionId, AnalyticsFormat.timestamp(Date())])
    }

    static func stamp(_ row: Row) -> RecordStamp {
        RecordStamp(
            created: AnalyticsFormat.date(row["created"]) ?? Date(timeIntervalSince1970: 0), timeZone: row["timeZone"],
            latitude: row["latitude"], longitude: row["longitude"])
    }

    static func session(_ row: Row) -> SessionRecord {
        SessionRecord(
            id: row["id"], presentationId: row["presentationId"], viewerId: row["viewerId"], userId: row["userId"],
            stamp: stamp(row), address: row["address"], duration: row["duration"], slidesCount: row["slidesCount"],
            state: SessionState(rawValue: row["state"]) ?? .inProgress, complete: row["complete"])
    }

    static func slideView(_ row: Row) -> SlideViewRecord {
        SlideViewRecord(
            id: row["id"], sessionId: row["sessionId"], presentationId: row["presentationId"], slideName: row["slideName"],
            userId: row["userId"], duration: row["duration"], navigation: row["navigation"], cause: row["cause"], stamp: stamp(row))
    }

    static func mediaView(_ row: Row) -> MediaViewRecord {
        MediaViewRecord(
            id: row["id"], sessionId: row["sessionId"], presentationId: row["presentationId"], fileName: row["fileName"],
            userId: row["userId"], duration: row["duration"], stamp: stamp(row))
    }

    static func customEvent(_ row: Row) -> CustomEventRecord {
        CustomEventRecord(
            id: row["id"], sessionId: row["sessionId"], presentationId: row["presentationId"], userId: row["userId"],
            key: row["key"], value: row["value"], stamp: stamp(row))
    }
}
