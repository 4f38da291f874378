import Foundation
import GRDB
import Testing

@testable import StoryBridge

/// The in-memory mirror of sessions' custom events: what it keeps, when it lets a load go, and
/// that reads through the store always agree with the database.
@Suite("custom event cache")
struct CustomEventCacheTests {
    @Test("A load is kept; lookups answer known values and known absences")
    func loadThenLookup() {
        let cache = CustomEventCache()
        #expect(cache.lookup(session: "s", key: "a") == .unknown)
        #expect(cache.beginLoad("s"))
        #expect(!cache.beginLoad("s"), "a second load of the same session is not claimed")
        cache.finishLoad("s", values: ["a": "1"])
        #expect(cache.lookup(session: "s", key: "a") == .known("1"))
        #expect(cache.lookup(session: "s", key: "b") == .known(nil))
        #expect(!cache.beginLoad("s"), "a mirrored session is not loaded again")
    }

    @Test("A change committed while a session is read makes that load stale: it is not kept")
    func staleLoadDropped() {
        for change in [
            { (cache: CustomEventCache) in cache.committedSet(session: "s", key: "a", value: "2") },
            { (cache: CustomEventCache) in cache.committedDelete(session: "s", key: "a") },
            { (cache: CustomEventCache) in cache.invalidate("s") },
        ] {
            let cache = CustomEventCache()
            #expect(cache.beginLoad("s"))
            change(cache)
            cache.finishLoad("s", values: ["a": "1"])
            #expect(cache.lookup(session: "s", key: "a") == .unknown)
            #expect(cache.beginLoad("s"), "the next read loads again")
        }
    }

    @Test("Committed sets and deletes update a mirrored session; a failed load keeps nothing")
    func writeThrough() {
        let cache = CustomEventCache()
        #expect(cache.beginLoad("s"))
        cache.finishLoad("s", values: [:])
        cache.committedSet(session: "s", key: "a", value: "1")
        cache.committedSet(session: "s", key: "a", value: "2")
        #expect(cache.lookup(session: "s", key: "a") == .known("2"))
        cache.committedDelete(session: "s", key: "a")
        #expect(cache.lookup(session: "s", key: "a") == .known(nil))
        #expect(cache.beginLoad("t"))
        cache.finishLoad("t", values: nil)
        #expect(cache.lookup(session: "t", key: "a") == .unknown)
    }

    @Test("Limits: sessions over the key or byte limit are not mirrored; the least recently used leave first")
    func limits() {
        let cache = CustomEventCache(limits: .init(sessions: 10, keysPerSession: 3, bytesPerSession: 20))
        #expect(cache.beginLoad("many"))
        cache.finishLoad("many", values: ["a": "", "b": "", "c": "", "d": ""])
        #expect(cache.lookup(session: "many", key: "a") == .unknown)
        #expect(cache.beginLoad("big"))
        cache.finishLoad("big", values: ["a": String(repeating: "x", count: 20)])
        #expect(cache.lookup(session: "big", key: "a") == .unknown)
        // Growing past a limit by a write drops the session (its reads go to the database).
        #expect(cache.beginLoad("grows"))
        cache.finishLoad("grows", values: ["a": "1"])
        cache.committedSet(session: "grows", key: "b", value: String(repeating: "y", count: 30))
        #expect(cache.lookup(session: "grows", key: "a") == .unknown)

        for index in 0..<10 {
            #expect(cache.beginLoad("s\(index)"))
            cache.finishLoad("s\(index)", values: ["k": "\(index)"])
        }
        // s0 is used again, so s1 is the least recently used when the eleventh arrives.
        #expect(cache.lookup(session: "s0", key: "k") == .known("0"))
        #expect(cache.beginLoad("s10"))
        cache.finishLoad("s10", values: ["k": "10"])
        #expect(cache.count <= 10)
        #expect(cache.lookup(session: "s1", key: "k") == .unknown)
        #expect(cache.lookup(session: "s0", key: "k") == .known("0"))
        #expect(cache.lookup(session: "s10", key: "k") == .known("10"))

        // The byte budget over all sessions: 5 sessions of 10 bytes fit in 40 only by leaving.
        let budget = CustomEventCache(limits: .init(sessions: 100, keysPerSession: 10, bytesPerSession: 20, totalBytes: 40))
        for index in 0..<5 {
            #expect(budget.beginLoad("b\(index)"))
            budget.finishLoad("b\(index)", values: ["k": String(repeating: "v", count: 9)])
        }
        #expect(budget.bytes <= 40)
        #expect(budget.lookup(session: "b0", key: "k") == .unknown)
        #expect(budget.lookup(session: "b4", key: "k") == .known("vvvvvvvvv"))
        budget.committedDelete(session: "b4", key: "k")
        budget.invalidate("b3")
        #expect(budget.bytes == (budget.count - 1) * 10)
    }

    @Test("Through the store: reads follow sets, deletes, rollbacks and merges exactly as the database does")
    func storeAgreesWithDatabase() async throws {
        let store = AnalyticsStore(database: try temporaryDatabase())
        let stamp = RecordStamp(at: Date(), identity: HostIdentity())
        for id in ["old", "new"] {
            try await store.insert(
                SessionRecord(
                    id: id, presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0, slidesCount: 0,
                    state: .inProgress, complete: false))
        }
        func set(_ session: String, _ key: String, _ value: String) async throws {
            try await store.upsert(
                CustomEventRecord(
                    id: UUIDs.make(), sessionId: session, presentationId: 1, userId: "u", key: key, value: value, stamp: stamp))
        }
        func databaseValue(_ session: String, _ key: String) async throws -> String? {
            try await store.database.pool.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM customEvent WHERE sessionId = ? AND key = ?", arguments: [session, key])
            }
        }

        try await set("old", "a", "1")
        #expect(try await store.customEventValue(sessionId: "old", key: "a") == "1")
        #expect(store.customEventCache.lookup(session: "old", key: "a") == .known("1"), "the first read mirrors the session")
        try await set("old", "a", "2")
        try await set("old", "b", "3")
        #expect(try await store.customEventValue(sessionId: "old", key: "a") == "2")
        #expect(try await store.customEventValue(sessionId: "old", key: "b") == "3")
        #expect(try await store.deleteCustomEvent(sessionId: "old", key: "b"))
        #expect(try await store.customEventValue(sessionId: "old", key: "b") == nil)

        // A write that fails rolls back and leaves the mirror as the database is.
        await #expect(throws: (any Error).self) {
            try await store.database.write { db in
                try CustomEventRecord(
                    id: UUIDs.make(), sessionId: "old", presentationId: 1, userId: "u", key: "a", value: "never", stamp: stamp
                ).upsertThenFail(db)
            }
        }
        #expect(try await store.customEventValue(sessionId: "old", key: "a") == "2")
        #expect(try await databaseValue("old", "a") == "2")
        // A set the database refuses (no such session) is not mirrored either.
        await #expect(throws: (any Error).self) { try await set("ghost", "a", "1") }
        #expect(try await store.customEventValue(sessionId: "ghost", key: "a") == nil)

        // Restoring moves the newer session's keys into the older one; both mirrors are dropped.
        try await set("new", "a", "9")
        #expect(try await store.customEventValue(sessionId: "new", key: "a") == "9")
        try await store.merge("new", into: "old")
        #expect(try await store.customEventValue(sessionId: "old", key: "a") == "9")
        #expect(try await store.customEventValue(sessionId: "new", key: "a") == nil)
        for key in ["a", "b"] {
            #expect(try await store.customEventValue(sessionId: "old", key: key) == (try await databaseValue("old", key)))
        }
    }

    @Test("Reads and writes of many pages at once: every read after a page's own write sees it")
    func concurrentPages() async throws {
        let store = AnalyticsStore(database: try temporaryDatabase())
        let stamp = RecordStamp(at: Date(), identity: HostIdentity())
        let sessions = (0..<20).map { "session-\($0)" }
        for id in sessions {
            try await store.insert(
                SessionRecord(
                    id: id, presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0, slidesCount: 0,
                    state: .inProgress, complete: false))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for session in sessions {
                group.addTask {
                    for round in 0..<30 {
                        try await store.upsert(
                            CustomEventRecord(
                                id: UUIDs.make(), sessionId: session, presentationId: 1, userId: "u", key: "k", value: "\(round)",
                                stamp: stamp))
                        let read = try await store.customEventValue(sessionId: session, key: "k")
                        #expect(read == "\(round)", "\(session) round \(round)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

extension CustomEventRecord {
    /// Upserts the record the way the store does, then throws, so its transaction rolls back.
    fileprivate func upsertThenFail(_ db: Database) throws {
        try db.execute(
            sql: "UPDATE customEvent SET value = ? WHERE sessionId = ? AND key = ?", arguments: [value, sessionId, key])
        throw DatabaseError(resultCode: .SQLITE_ABORT, message: "failing on purpose")
    }
}

/// The mirror of sessions with their slide views (`getCurrentSessions`): every change of the
/// session or its slide views is seen by the next read.
@Suite("session mirror")
struct SessionMirrorTests {
    @Test("Reads through the store follow new slide views, the complete flag, state changes and restores")
    func followsEveryChange() async throws {
        let store = AnalyticsStore(database: try temporaryDatabase())
        let stamp = RecordStamp(at: Date(), identity: HostIdentity())
        func session(_ id: String) -> SessionRecord {
            SessionRecord(
                id: id, presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0, slidesCount: 0,
                state: .inProgress, complete: false)
        }
        func view(_ sessionId: String, _ name: String) -> SlideViewRecord {
            SlideViewRecord(
                id: UUIDs.make(), sessionId: sessionId, presentationId: 1, slideName: name, userId: "u", duration: 4,
                navigation: "in", cause: "page", stamp: stamp)
        }
        #expect(try await store.mirroredSessionWithSlideViews(id: "a") == nil)
        try await store.insert(session("a"))
        #expect(try await store.mirroredSessionWithSlideViews(id: "a")?.0.id == "a", "a session read as missing appears once inserted")
        #expect(store.sessionMirror.lookup("a") != nil, "the read mirrors it")

        try await store.insert(view("a", "one.html"))
        var read = try #require(try await store.mirroredSessionWithSlideViews(id: "a"))
        #expect(read.1.map(\.slideName) == ["one.html"])
        #expect(read.0.slidesCount == 1)
        #expect(read.0.duration == 4)

        try await store.markComplete(sessionId: "a")
        #expect(store.sessionMirror.lookup("a")?.session?.complete == true, "the flag is written through")
        let mirrored = try #require(try await store.mirroredSessionWithSlideViews(id: "a"))
        let stored = try #require(try await store.sessionWithSlideViews(id: "a"))
        #expect(mirrored.0 == stored.0, "the mirrored session is the stored one, its updated time included")
        #expect(mirrored.0.complete)
        try await store.setState(.saved, sessionId: "a", endedBy: .close)
        read = try #require(try await store.mirroredSessionWithSlideViews(id: "a"))
        #expect(read.0.state == .saved)

        // A restore moves the newer session's slide views into the older one and deletes it.
        try await store.insert(session("b"))
        try await store.insert(view("b", "two.html"))
        #expect(try await store.mirroredSessionWithSlideViews(id: "b")?.1.count == 1)
        try await store.merge("b", into: "a")
        #expect(try await store.mirroredSessionWithSlideViews(id: "b") == nil)
        read = try #require(try await store.mirroredSessionWithSlideViews(id: "a"))
        #expect(Set(read.1.map(\.slideName)) == ["one.html", "two.html"])
        #expect(read.0.state == .inProgress)
        #expect(read.0.slidesCount == 2)
    }

    @Test("A session whose value is over the per-session limit is not mirrored; the byte budget evicts")
    func limits() {
        let mirror = SessionMirror<[Int]>(limits: .init(sessions: 100, bytesPerSession: 10, totalBytes: 20)) { $0.count }
        #expect(mirror.beginLoad("big"))
        mirror.finishLoad("big", value: Array(0..<11))
        #expect(mirror.lookup("big") == nil)
        for name in ["x", "y", "z"] {
            #expect(mirror.beginLoad(name))
            mirror.finishLoad(name, value: Array(0..<8))
        }
        #expect(mirror.bytes <= 20)
        #expect(mirror.lookup("x") == nil)
        #expect(mirror.lookup("z") == Array(0..<8))
        mirror.update("z") { $0.append(contentsOf: [8, 9, 10]) }
        #expect(mirror.lookup("z") == nil, "grown over the per-session limit")
    }
}
