import Foundation
import GRDB
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// A host database in a real SQLite file with one of every analytics write made through the
/// stores, and a second connection to the same file for editing it as someone outside the host would.
struct AuditLab {
    let folder: URL
    let file: URL
    let database: StoryBridgeDatabase
    let store: AnalyticsStore
    let clock = ManualHostClock()

    /// The manifest hash of the folder presentation 1 is first served from.
    static let firstHash = String(repeating: "a1", count: 32)
    /// The one of the folder it is served from after the swap.
    static let secondHash = String(repeating: "b2", count: 32)

    init() throws {
        folder = try scratchFolder("sb-audit")
        file = folder.appendingPathComponent("storybridge.sqlite")
        database = try StoryBridgeDatabase(file: file)
        store = AnalyticsStore(database: database, clock: clock)
        try serve(folder: "p1-r3", revision: 3, manifestHash: Self.firstHash)
    }

    /// Makes presentation 1 served from `folder` at `revision`, installed with a signed manifest of
    /// `manifestHash` (a sync's swap, as the catalog and `packageTrust` record it).
    func serve(folder: String, revision: Int, manifestHash: String) throws {
        try database.writeSeparately { db in
            try db.execute(
                sql: """
                    INSERT INTO presentation (id, name, revision, folder, installedAt) VALUES (1, 'deck', ?, ?, '2026-11-29 08:00:00')
                    ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, folder = excluded.folder
                    """, arguments: [revision, folder])
            try db.execute(
                sql: "INSERT INTO packageTrust (folder, presentationId, signed, manifestHash) VALUES (?, 1, 1, ?)",
                arguments: [folder, manifestHash])
        }
    }

    func session(_ id: String, revision: Int = 3) -> SessionRecord {
        SessionRecord(
            id: id, presentationId: 1, viewerId: "viewer-\(id)", userId: "user", stamp: stamp(), address: "Berlin", duration: 0,
            slidesCount: 0, state: .inProgress, complete: false, presentationRevision: revision)
    }

    func stamp() -> RecordStamp {
        RecordStamp(created: clock.now, timeZone: 1.5, latitude: 52.520008, longitude: 13.404954)
    }

    func slideView(_ id: String, session: String, slide: String = "a.html", duration: Int = 4) -> SlideViewRecord {
        SlideViewRecord(
            id: id, sessionId: session, presentationId: 1, slideName: slide, userId: "user", duration: duration, navigation: "in",
            cause: "page", stamp: stamp())
    }

    func customEvent(_ id: String, session: String, key: String, value: String) -> CustomEventRecord {
        CustomEventRecord(id: id, sessionId: session, presentationId: 1, userId: "user", key: key, value: value, stamp: stamp())
    }

    /// One of every write the host makes to the analytics tables, through the stores.
    func recordEverything() async throws {
        try await store.insert(session("s1"))
        clock.advance(by: .seconds(3))
        try await store.insert(slideView("v1", session: "s1"))
        try await store.insert(
            MediaViewRecord(
                id: "m1", sessionId: "s1", presentationId: 1, fileName: "film.mp4", userId: "user", duration: 7, stamp: stamp()))
        try await store.upsert(customEvent("e1", session: "s1", key: "answer", value: "1"))
        try await store.upsert(customEvent("e2", session: "s1", key: "answer", value: "2"))
        try await store.upsert(customEvent("e3", session: "s1", key: "gone", value: "x"))
        try await store.deleteCustomEvent(sessionId: "s1", key: "gone")
        try await store.insert(
            DeepLinkRecord(
                id: "d1", sessionId: "s1", presentationId: 1, userId: "user", direction: .inbound, uri: "storyclm://content?p=1",
                source: "external", parameters: ["p": "1"], stamp: stamp()))
        try await store.markComplete(sessionId: "s1")
        let crm = CRMStore(database: database, clock: clock)
        let made = try await crm.save(
            presentationId: 1, object: "Call_Clickstream_vod__c", recordId: nil, fields: ["Answer_vod__c": "yes"], sessionId: "s1")
        _ = try await crm.save(
            presentationId: 1, object: "Call_Clickstream_vod__c", recordId: made.id, fields: ["Answer_vod__c": "no"], sessionId: "s1")
        try await OceStateStore(database: database, clock: clock).save(
            presentationId: 1, viewerId: "viewer-s1", sessionId: "s1", state: ["page": 2])
        try await store.setState(.notSaved, sessionId: "s1", endedBy: .timeout)
        // A session started meanwhile, restored into s1: its records move, its newer keys win.
        try await store.insert(session("s2"))
        try await store.insert(slideView("v2", session: "s2", slide: "b.html"))
        try await store.upsert(customEvent("e4", session: "s2", key: "answer", value: "3"))
        try await store.merge("s2", into: "s1")
        clock.advance(by: .seconds(2))
        try await store.setState(.saved, sessionId: "s1", endedBy: .close)
    }

    /// Has the log sign its head every `every` entries with a new host key, and returns the key.
    @discardableResult
    func signingCheckpoints(every: Int) -> HostKey {
        let key = HostKey()
        database.auditLog.configure(AuditLogState.Settings(key: key, checkpointEvery: every), checkpointSequence: 0)
        return key
    }

    /// The entries, in position order.
    func entries() async throws -> [AuditEntry] {
        try await database.read { db in try AuditEntry.order(AuditEntry.CodingKeys.position).fetchAll(db) }
    }

    /// Runs `sql` on a connection of its own to the file, as someone editing it with sqlite3 would;
    /// `droppingTriggers` first removes the log's append-only triggers, as such an editor must.
    func edit(_ sql: String, arguments: StatementArguments = [], droppingTriggers: Bool = false) throws {
        let outside = try DatabaseQueue(path: file.path)
        try outside.write { db in
            if droppingTriggers {
                try db.execute(sql: "DROP TRIGGER IF EXISTS auditEntryAppendOnlyUpdate; DROP TRIGGER IF EXISTS auditEntryAppendOnlyDelete")
            }
            try db.execute(sql: sql, arguments: arguments)
        }
    }

    /// What `audit verify` finds.
    func verify() throws -> AuditVerifier.Report {
        try AuditVerifier(file: file).verify()
    }

    /// Expects every audited table of `rebuilt` (what `audit verify --write-rebuilt` wrote) to hold
    /// the same rows as the live file.
    func expectRebuiltEqualsLive(_ rebuilt: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let copy = try DatabaseQueue(path: rebuilt.path)
        let live = try DatabaseQueue(path: file.path)
        for table in AuditedTable.all {
            let sql = table.selectInScope
            let written = try copy.read { db in try Row.fetchAll(db, sql: sql) }
            let expected = try live.read { db in try Row.fetchAll(db, sql: sql) }
            #expect(written == expected, "\(table.name)", sourceLocation: sourceLocation)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A database file of the version before the audit log (migrated up to v17) holding the session
/// `old`, in a scratch folder of its own, with the migrator that takes it further.
struct DatabaseBeforeTheLog {
    let folder: URL
    let file: URL
    let queue: DatabaseQueue
    let migrator: DatabaseMigrator

    init(_ prefix: String) async throws {
        folder = try scratchFolder(prefix)
        file = folder.appendingPathComponent("storybridge.sqlite")
        queue = try DatabaseQueue(path: file.path)
        var migrator = StoryBridgeDatabase.migrator
        migrator.eraseDatabaseOnSchemaChange = false
        try migrator.migrate(queue, upTo: "v17-kept-dialect")
        self.migrator = migrator
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (id, presentationId, viewerId, userId, created, timeZone, latitude, longitude, address, updated)
                    VALUES ('old', 1, 'v', 'u', '2026-01-01T00:00:00.000Z', 1.0, 0.5, 0.25, '', '2026-01-01T00:00:00.000Z');
                    """)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
