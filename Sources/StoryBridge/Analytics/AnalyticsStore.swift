import Foundation
import GRDB

/// The analytics records in SQLite: sessions, slide views, media views, custom events, and the
/// outbox the uploader publishes from. Every write is committed, and the log holding it synced,
/// before it returns, so a record survives a killed host or a power cut once the command that
/// caused it is answered. Reads and writes run on GRDB's queues (``StoryBridgeDatabase``'s group
/// commit and group read), never on the caller's thread; a stored row that cannot be read back is
/// a ``CorruptRecordError`` naming it. The in-memory mirrors below follow committed writes through
/// ``StoryBridgeDatabase/afterCommit(_:_:)`` only.
public final class AnalyticsStore: Sendable {
    /// The host's database, where a module may write records of its own.
    public let database: StoryBridgeDatabase
    /// Caps on what may wait in the outbox.
    package let limits: OutboxLimits
    /// Where the store reads the time it stamps on changes (`updated`, `queuedAt`, `sentAt`).
    package let clock: any HostClock
    /// The custom events of recently read sessions, kept in step with every committed change.
    let customEventCache = CustomEventCache()
    /// Recently read sessions with their slide views (`getCurrentSessions`), dropped after every
    /// committed change of the session or its slide views.
    let sessionMirror = SessionMirror<SessionWithSlideViews>(
        limits: .init(sessions: 1_000, bytesPerSession: 64 * 1024, totalBytes: 4 * 1024 * 1024), size: \.estimatedBytes)

    package init(database: StoryBridgeDatabase, limits: OutboxLimits = OutboxLimits(), clock: any HostClock = SystemHostClock()) {
        self.database = database
        self.limits = limits
        self.clock = clock
    }

    var pool: DatabasePool { database.pool }

    private typealias Session = SessionRecord.CodingKeys
    private typealias SlideView = SlideViewRecord.CodingKeys
    private typealias MediaView = MediaViewRecord.CodingKeys
    private typealias CustomEvent = CustomEventRecord.CodingKeys

    // MARK: Sessions

    /// Stores a new session, with the manifest of the folder its presentation is served from now
    /// (the deck every audit entry of the session names), and appends its `session.started` entry.
    package func insert(_ session: SessionRecord) async throws {
        var session = session
        session.updated = clock.now
        let decks = database.auditDecks
        try await database.write { [session] db in
            var session = session
            (session.manifestHash, session.manifestSigned) = try AuditDeck.served(presentationId: session.presentationId, db: db)
            try session.insert(db)
            try AuditLog.append(
                db, in: self.database, kind: AuditKind.sessionStarted, deck: session.auditDeck, changes: [.insert(session)],
                at: session.updated)
            decks.keep(session.auditDeck, for: session.id)
            self.sessionChanged(session.id, db: db)
        }
    }

    /// One session, if it exists.
    package func session(id: String) async throws -> SessionRecord? {
        try await database.read { db in try SessionRecord.readOne(db, SessionRecord.filter(key: id)) }
    }

    /// Sessions, newest first, optionally of one user or presentation.
    package func sessions(userId: String? = nil, presentationId: Int? = nil, limit: Int = 10_000) async throws -> [SessionRecord] {
        var request = SessionRecord.all()
        if let userId { request = request.filter(Session.userId == userId) }
        if let presentationId { request = request.filter(Session.presentationId == presentationId) }
        let newestFirst = request.order(Session.created.desc, Column.rowID.desc).limit(limit)
        return try await database.read { db in try SessionRecord.readAll(db, newestFirst) }
    }

    /// The newest unfinished session (state 0, 3 or 4) of a user and presentation, skipping `active`
    /// ones and those of viewers that left memory (they continue when their tab comes back).
    func unfinishedSession(presentationId: Int, userId: String, excluding active: Set<String>) async throws -> SessionRecord? {
        let candidates = try await database.read { db in
            try SessionRecord.readAll(db, cachedSQL: Self.newestUnfinishedSQL, arguments: [presentationId, userId])
        }.filter { !active.contains($0.id) }
        guard !candidates.isEmpty else { return nil }
        let held = try await database.read { db in
            try Set(
                String.fetchAll(
                    db,
                    ViewerSnapshot.select(ViewerSnapshot.CodingKeys.sessionId, as: String.self)
                        .filter(candidates.map(\.id).contains(ViewerSnapshot.CodingKeys.sessionId))))
        }
        return candidates.first { !held.contains($0.id) }
    }

    /// The 50 newest unfinished sessions of a presentation (`?`) and user (`?`), newest first. The
    /// inner query reads only the index `session_unfinished` (migration `v8-session-lookup`), so a
    /// page load costs the same however many finished sessions the user has: it used to read and
    /// sort every session of the user and presentation, which on a kiosk (one user) grew with every
    /// visit ever made.
    private static let newestUnfinishedSQL = """
        SELECT * FROM session WHERE rowid IN (
            SELECT rowid FROM session
            WHERE presentationId = ? AND userId = ?
              AND state IN (\(SessionState.allCases.filter(\.isUnfinished).map { String($0.rawValue) }.joined(separator: ", ")))
            ORDER BY created DESC, rowid DESC LIMIT 50)
        ORDER BY created DESC, rowid DESC
        """

    /// Changes a session's state. Moving to "saved" queues the session and all its records for
    /// upload, in the same transaction.
    /// `endedBy` says how a finished session ended.
    package func setState(_ state: SessionState, sessionId: String, endedBy: SessionEnd? = nil) async throws {
        let now = clock.now
        try await database.write { db in
            let changed = try self.changeSession(sessionId, at: now, db: db) {
                $0.state = state
                $0.endedBy = endedBy
            }
            if let changed {
                try AuditLog.append(
                    db, in: self.database, kind: AuditKind.sessionState, deck: changed.auditDeck, changes: [.update(changed)], at: now)
            }
            if state == .saved { try self.enqueueSession(sessionId, db: db) }
        }
    }

    /// Sets a session's `complete` flag (a missing session is left alone).
    package func markComplete(sessionId: String) async throws {
        try await database.write(markingComplete(sessionId: sessionId))
    }

    /// The write of ``markComplete(sessionId:)``, for a recording command (``PreparedRecord``).
    func markingComplete(sessionId: String) -> @Sendable (Database) throws -> Void {
        let now = clock.now
        let updated = AnalyticsFormat.timestamp(now)
        let decks = database.auditDecks
        return { db in
            try db.cachedStatement(sql: "UPDATE session SET complete = 1, updated = ? WHERE id = ?").execute(arguments: [
                updated, sessionId,
            ])
            if db.changesCount > 0 {
                try AuditLog.append(
                    db, in: self.database, kind: AuditKind.sessionComplete, deck: decks.deck(of: sessionId, db: db),
                    changes: [
                        AuditChange(
                            .update, table: "session", key: ["id": sessionId.databaseValue],
                            row: ["complete": 1.databaseValue, "updated": updated.databaseValue])
                    ],
                    at: now)
            }
            // Written through to a mirrored session (content sets the flag and reads its session
            // back on the same slides), with `updated` as stored.
            let mirror = self.sessionMirror
            let stored = AnalyticsFormat.date(updated)
            self.database.afterCommit(db) {
                guard let stored else { return mirror.invalidate(sessionId) }
                mirror.update(sessionId) { found in
                    found.session?.complete = true
                    found.session?.updated = stored
                }
            }
        }
    }

    /// Moves what was recorded in `from` into `into` (a restored session) and deletes `from`.
    package func merge(_ from: String, into: String) async throws {
        let now = clock.now
        let decks = database.auditDecks
        try await database.write { db in
            // The entry's changes: each bulk move as one update keyed by the old session.
            var changes: [AuditChange] = []
            func moved(_ table: String, _ count: Int) {
                guard count > 0 else { return }
                changes.append(
                    AuditChange(.update, table: table, key: ["sessionId": from.databaseValue], row: ["sessionId": into.databaseValue]))
            }
            moved("slideView", try SlideViewRecord.filter(SlideView.sessionId == from).updateAll(db, SlideView.sessionId.set(to: into)))
            moved("mediaView", try MediaViewRecord.filter(MediaView.sessionId == from).updateAll(db, MediaView.sessionId.set(to: into)))
            moved(
                "deepLinkEvent",
                try DeepLinkRecord.filter(DeepLinkRecord.CodingKeys.sessionId == from)
                    .updateAll(db, DeepLinkRecord.CodingKeys.sessionId.set(to: into)))
            // Keys set in the newer session win.
            let newerKeys = CustomEventRecord.filter(CustomEvent.sessionId == from).select(CustomEvent.key)
            let overridden = CustomEventRecord.filter(CustomEvent.sessionId == into && newerKeys.contains(CustomEvent.key))
            for id in try overridden.select(CustomEvent.id, as: String.self).fetchAll(db) {
                changes.append(AuditChange(.delete, table: "customEvent", key: ["id": id.databaseValue]))
            }
            try overridden.deleteAll(db)
            moved(
                "customEvent",
                try CustomEventRecord.filter(CustomEvent.sessionId == from).updateAll(db, CustomEvent.sessionId.set(to: into)))
            let cache = self.customEventCache
            self.database.afterCommit(db) {
                cache.invalidate(from)
                cache.invalidate(into)
            }
            if try SessionRecord.deleteOne(db, key: from) {
                changes.append(AuditChange(.delete, table: "session", key: ["id": from.databaseValue]))
            }
            self.sessionChanged(from, db: db)
            let continued = try self.changeSession(into, at: now, refreshingTotals: true, db: db) { $0.state = .inProgress }
            if let continued { changes.append(try .update(continued)) }
            let deck = try continued?.auditDeck ?? decks.deck(of: into, db: db)
            try AuditLog.append(db, in: self.database, kind: AuditKind.sessionRestored, deck: deck, changes: changes, at: now)
        }
    }

    /// Applies `change` to a stored session and sets its `updated`, first recounting its duration
    /// and slides from its slide views when `refreshingTotals`; a missing session is left alone.
    /// Returns the session as written (`nil` when missing), for the caller's audit entry.
    @discardableResult
    private func changeSession(
        _ sessionId: String, at now: Date, refreshingTotals: Bool = false, db: Database,
        _ change: (inout SessionRecord) -> Void = { _ in }
    ) throws -> SessionRecord? {
        guard var session = try SessionRecord.readOne(db, SessionRecord.filter(key: sessionId)) else { return nil }
        if refreshingTotals {
            let views = SlideViewRecord.filter(SlideView.sessionId == sessionId)
            session.duration = try views.select(sum(SlideView.duration), as: Int.self).fetchOne(db) ?? 0
            session.slidesCount = try views.fetchCount(db)
        }
        session.updated = now
        change(&session)
        try session.update(db)
        sessionChanged(sessionId, db: db)
        return session
    }

    /// Drops `sessionId` from ``sessionMirror`` once the current transaction has committed. Every
    /// write of a session row or its slide views calls it.
    private func sessionChanged(_ sessionId: String, db: Database) {
        let mirror = sessionMirror
        database.afterCommit(db) { mirror.invalidate(sessionId) }
    }

    // MARK: Records

    /// Stores a slide view and updates its session's duration and slide count.
    package func insert(_ view: SlideViewRecord) async throws {
        let now = clock.now
        let decks = database.auditDecks
        try await database.write { db in
            try view.insert(db)
            var changes = [try AuditChange.insert(view)]
            let session = try self.changeSession(view.sessionId, at: now, refreshingTotals: true, db: db)
            if let session { changes.append(try .update(session)) }
            let deck = try session?.auditDeck ?? decks.deck(of: view.sessionId, presentationId: view.presentationId, db: db)
            try AuditLog.append(db, in: self.database, kind: AuditKind.slideViewed, deck: deck, changes: changes, at: now)
        }
    }

    /// Stores a media view.
    package func insert(_ view: MediaViewRecord) async throws {
        let decks = database.auditDecks
        let now = clock.now
        try await database.write { db in
            try view.insert(db)
            try AuditLog.append(
                db, in: self.database, kind: AuditKind.mediaViewed,
                deck: decks.deck(of: view.sessionId, presentationId: view.presentationId, db: db),
                changes: [.insert(view)], at: now)
        }
    }

    /// Sets a custom event: one per key per session, a later value (and its stamp) replaces the
    /// earlier one, which keeps its id. One cached statement (SQLite's upsert).
    package func upsert(_ event: CustomEventRecord) async throws {
        try await database.write(upserting(event))
    }

    /// The write of ``upsert(_:)``, for a recording command (``PreparedRecord``).
    func upserting(_ event: CustomEventRecord) -> @Sendable (Database) throws -> Void {
        let cache = customEventCache
        let decks = database.auditDecks
        let now = clock.now
        return { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO customEvent (id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (sessionId, key) DO UPDATE SET value = excluded.value, created = excluded.created
                    """
            ).execute(arguments: [
                event.id, event.sessionId, event.presentationId, event.userId, event.key, event.value,
                AnalyticsFormat.timestamp(event.created), event.timeZone, event.latitude, event.longitude,
            ])
            try AuditLog.append(
                db, in: self.database, kind: AuditKind.customEventSet,
                deck: decks.deck(of: event.sessionId, presentationId: event.presentationId, db: db),
                changes: [
                    AuditChange(
                        .upsert, table: CustomEventRecord.databaseTableName, row: event.auditRow,
                        conflict: [CustomEvent.sessionId.rawValue, CustomEvent.key.rawValue], replacing: ["value", "created"])
                ],
                at: now)
            self.database.afterCommit(db) { cache.committedSet(session: event.sessionId, key: event.key, value: event.value) }
        }
    }

    /// The value of a custom event: from the session's mirror in memory when it has one, otherwise
    /// from the database, loading the session's events into the mirror (``CustomEventCache``).
    package func customEventValue(sessionId: String, key: String) async throws -> String? {
        try await customEventCache.mirror.read(sessionId) {
            try await database.read { db in
                var values: [String: String] = [:]
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT id, key, value FROM customEvent WHERE sessionId = ?"), arguments: [sessionId])
                while let row = try rows.next() {
                    guard let name = row[1] as String?, let value = row[2] as String? else {
                        let id: String = row[0] ?? "?"
                        throw CorruptRecordError(table: "customEvent", id: id, reason: "its key or value is not text")
                    }
                    values[name] = value
                }
                return values
            }
        }[key]
    }

    /// Deletes a custom event; returns whether it existed.
    @discardableResult
    package func deleteCustomEvent(sessionId: String, key: String) async throws -> Bool {
        let delete = deletingCustomEvent(sessionId: sessionId, key: key)
        return try await database.write { db in try delete(db) > 0 }
    }

    /// The write of ``deleteCustomEvent(sessionId:key:)``: returns how many rows it deleted.
    func deletingCustomEvent(sessionId: String, key: String) -> @Sendable (Database) throws -> Int {
        let cache = customEventCache
        let database = self.database
        let now = clock.now
        return { db in
            let deleted = try CustomEventRecord.filter(CustomEvent.sessionId == sessionId && CustomEvent.key == key).deleteAll(db)
            if deleted > 0 {
                try AuditLog.append(
                    db, in: database, kind: AuditKind.customEventDeleted, deck: database.auditDecks.deck(of: sessionId, db: db),
                    changes: [
                        AuditChange(.delete, table: "customEvent", key: ["sessionId": sessionId.databaseValue, "key": key.databaseValue])
                    ],
                    at: now)
            }
            database.afterCommit(db) { cache.committedDelete(session: sessionId, key: key) }
            return deleted
        }
    }

    /// All custom events of a session.
    package func customEvents(sessionId: String) async throws -> [CustomEventRecord] {
        try await database.read { db in
            try CustomEventRecord.readAll(db, CustomEventRecord.filter(CustomEvent.sessionId == sessionId).order(CustomEvent.key))
        }
    }

    /// The slide views of a session, oldest first.
    package func slideViews(sessionId: String) async throws -> [SlideViewRecord] {
        try await database.read { db in
            try SlideViewRecord.readAll(
                db, SlideViewRecord.filter(SlideView.sessionId == sessionId).order(SlideView.created, Column.rowID))
        }
    }

    /// A session and its slide views (oldest first), read together; `nil` when there is no such
    /// session.
    package func sessionWithSlideViews(id: String) async throws -> (SessionRecord, [SlideViewRecord])? {
        let found = try await database.read { db in try Self.readSessionWithSlideViews(id: id, db: db) }
        return found.session.map { ($0, found.slideViews) }
    }

    /// The same, read through ``sessionMirror``: a session read this way before, and not changed
    /// since, is answered from memory. For a viewer's own session, which content asks for on every
    /// slide (`getCurrentSessions`).
    package func mirroredSessionWithSlideViews(id: String) async throws -> (SessionRecord, [SlideViewRecord])? {
        let found = try await mirroredSession(id: id)
        return found.session.map { ($0, found.slideViews) }
    }

    /// A session with its slide views, read through ``sessionMirror``.
    func mirroredSession(id: String) async throws -> SessionWithSlideViews {
        try await sessionMirror.read(id) {
            try await database.read { db in try Self.readSessionWithSlideViews(id: id, db: db) }
        }
    }

    private static func readSessionWithSlideViews(id: String, db: Database) throws -> SessionWithSlideViews {
        guard let session = try SessionRecord.readOne(db, cachedSQL: "SELECT * FROM session WHERE id = ?", arguments: [id]) else {
            return SessionWithSlideViews(session: nil, slideViews: [])
        }
        let views = try SlideViewRecord.readAll(
            db, cachedSQL: "SELECT * FROM slideView WHERE sessionId = ? ORDER BY created, rowid", arguments: [id])
        return SessionWithSlideViews(session: session, slideViews: views)
    }

    /// The media views of a session, oldest first.
    package func mediaViews(sessionId: String) async throws -> [MediaViewRecord] {
        try await database.read { db in
            try MediaViewRecord.readAll(
                db, MediaViewRecord.filter(MediaView.sessionId == sessionId).order(MediaView.created, Column.rowID))
        }
    }
}

/// A session with its slide views, as ``AnalyticsStore/sessionWithSlideViews(id:)`` reads them
/// (`session` is `nil` when there is no such session).
struct SessionWithSlideViews: Sendable {
    var session: SessionRecord? {
        didSet { answer = MadeOnce() }
    }
    var slideViews: [SlideViewRecord] {
        didSet { answer = MadeOnce() }
    }
    /// The answer of this version of the value, shared by its copies; a change starts a new one.
    private var answer = MadeOnce<EncodedJSON?>()

    init(session: SessionRecord?, slideViews: [SlideViewRecord]) {
        self.session = session
        self.slideViews = slideViews
    }

    /// The session with its slides as the Sessions module answers it, and its wire text (`nil`
    /// when there is no session). Made the first time it is asked for, then kept with the value
    /// until it changes: a mirrored session is read far more often than it changes, and a change
    /// (made on the database writer's queue) does not pay for it.
    var described: EncodedJSON? {
        answer.value { Self.describe(session, slideViews).map(EncodedJSON.init) }
    }

    /// The session's fields and its slides `[{id, name, duration, created}]`.
    static func describe(_ session: SessionRecord?, _ views: [SlideViewRecord]) -> JSONValue? {
        guard let session else { return nil }
        guard case .object(var members) = session.json else { return session.json }
        members["slides"] = .array(
            views.map {
                [
                    "id": .string($0.id), "name": .string($0.slideName), "duration": .int($0.duration),
                    "created": $0.json["created"] ?? .null,
                ]
            })
        return .object(members)
    }

    /// A rough count of the bytes held, for the mirror's limits.
    var estimatedBytes: Int? { 768 + slideViews.count * 384 }
}
