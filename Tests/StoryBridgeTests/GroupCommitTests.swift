import Foundation
import GRDB
import Synchronization
import Testing

@testable import StoryBridge

/// Writes through `StoryBridgeDatabase.write` share transactions when they arrive together.
@Suite("group commit")
struct GroupCommitTests {
    /// A database in a temporary folder, the writer queue held by a blocker until `release`, and a
    /// count of the transactions committed.
    final class HeldDatabase: Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-group-\(UUID().uuidString)")
        let database: StoryBridgeDatabase
        let commits = CommitCounter()
        private let gate = DispatchSemaphore(value: 0)

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            database = try StoryBridgeDatabase(file: folder.appendingPathComponent("test.sqlite"))
            try database.pool.write { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)")
                try db.execute(sql: "CREATE TABLE child (parent INTEGER NOT NULL REFERENCES note(id))")
            }
            database.pool.add(transactionObserver: commits)
            // Holds the writer until released.
            database.holdWriter(until: gate)
        }

        /// Starts a write and returns once it waits for a transaction, so writes queue in the order
        /// they are started.
        func enqueue(_ updates: @escaping @Sendable (Database) throws -> Void) async throws -> Task<Void, any Error> {
            let before = database.writesWaiting
            let task = Task { try await database.write(updates) }
            try await waitUntil { self.database.writesWaiting > before }
            return task
        }

        /// Waits until `count` writes wait for a transaction, then lets the writer go. The writer
        /// goes also when the wait fails: a caller awaiting the held writes (a task group does, as
        /// it ends) then fails with the wait's error instead of hanging (a loaded run hung so).
        func release(whenWaiting count: Int) async throws {
            defer { gate.signal() }
            try await waitUntil(waiting: count)
        }

        /// Returns once `count` writes wait for a transaction.
        func waitUntil(waiting count: Int) async throws {
            try await waitUntil { self.database.writesWaiting >= count }
        }

        private func waitUntil(_ condition: () -> Bool) async throws {
            // Generous: on a loaded machine this suite's writes were seen to take 15 s to queue.
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition() {
                guard ContinuousClock.now < deadline else { throw WritesNotQueued() }
                try await Task.sleep(for: .milliseconds(2))
            }
        }

        func notes() throws -> [String] {
            try database.pool.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY text") }
        }

        deinit {
            // A test that failed before releasing the writer: its held writes finish.
            gate.signal()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The writes a test started did not all wait for the held writer in time.
    struct WritesNotQueued: Error, CustomStringConvertible {
        var description: String { "the writes did not all queue for the held writer within 60 s" }
    }

    final class CommitCounter: TransactionObserver, Sendable {
        let count = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    struct Refused: Error, Equatable {}

    @Test("writes that arrive together are committed in one transaction, and each caller gets its own result")
    func batched() async throws {
        let held = try HeldDatabase()
        let results = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await held.database.write { db in
                        try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: ["n\(index)"])
                        return db.lastInsertedRowID
                    }
                }
            }
            try await held.release(whenWaiting: 50)
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(Set(results).count == 50)
        #expect(try held.notes().count == 50)
        #expect(held.commits.count.withLock { $0 } == 1)
    }

    @Test("a write that throws in a shared transaction undoes only its own changes and fails alone")
    func oneFails() async throws {
        let held = try HeldDatabase()
        let first = try await held.enqueue { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('a')") }
        let failing = try await held.enqueue { db in
            try db.execute(sql: "INSERT INTO note (text) VALUES ('b')")
            throw Refused()
        }
        let duplicate = try await held.enqueue { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('a')") }
        let last = try await held.enqueue { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('c')") }
        try await held.release(whenWaiting: 4)
        try await first.value
        await #expect(throws: Refused.self) { try await failing.value }
        await #expect(throws: DatabaseError.self) { try await duplicate.value }
        try await last.value
        #expect(try held.notes() == ["a", "c"])
        #expect(held.commits.count.withLock { $0 } == 1)
    }

    @Test("writes of a shared transaction run once each; after one throws, the writes up to it run again, each alone")
    func runsAgainOnlyAfterAFailure() async throws {
        let runs = Mutex<[String: Int]>([:])
        func insert(_ text: String, into held: HeldDatabase, fail: Bool = false) async throws -> Task<Void, any Error> {
            try await held.enqueue { db in
                runs.withLock { $0[text, default: 0] += 1 }
                try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [text])
                if fail { throw Refused() }
            }
        }
        let clean = try HeldDatabase()
        let writes = [try await insert("a", into: clean), try await insert("b", into: clean), try await insert("c", into: clean)]
        try await clean.release(whenWaiting: 3)
        for write in writes { try await write.value }
        #expect(runs.withLock { $0 } == ["a": 1, "b": 1, "c": 1])

        let failing = try HeldDatabase()
        let x = try await insert("x", into: failing)
        let y = try await insert("y", into: failing, fail: true)
        let z = try await insert("z", into: failing)
        try await failing.release(whenWaiting: 3)
        try await x.value
        await #expect(throws: Refused.self) { try await y.value }
        try await z.value
        // The first pass stopped at y; the second ran each write in a savepoint of its own.
        #expect(runs.withLock { [$0["x"], $0["y"], $0["z"]] } == [2, 2, 1])
        #expect(try failing.notes() == ["x", "z"])
        #expect(failing.commits.count.withLock { $0 } == 1)
    }

    @Test("when the shared transaction cannot commit, every write in it fails and none is stored")
    func commitFails() async throws {
        let held = try HeldDatabase()
        let valid = try await held.enqueue { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('kept?')") }
        // A foreign key checked only at commit: the statement succeeds, the COMMIT fails.
        let dangling = try await held.enqueue { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            try db.execute(sql: "INSERT INTO child (parent) VALUES (999)")
        }
        try await held.release(whenWaiting: 2)
        await #expect(throws: DatabaseError.self) { try await valid.value }
        await #expect(throws: DatabaseError.self) { try await dangling.value }
        #expect(try held.notes().isEmpty)
        #expect(held.commits.count.withLock { $0 } == 0)
    }

    @Test("after-commit hooks run in commit order before callers are answered, and never for a failed write or commit")
    func commitHooks() async throws {
        let ran = Mutex<[String]>([])
        let held = try HeldDatabase()
        func insert(_ text: String, fail: Bool = false) async throws -> Task<Void, any Error> {
            try await held.enqueue { db in
                try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [text])
                held.database.afterCommit(db) { ran.withLock { $0.append(text) } }
                if fail { throw Refused() }
            }
        }
        let first = try await insert("a")
        let failing = try await insert("b", fail: true)
        let last = try await insert("c")
        try await held.release(whenWaiting: 3)
        try await first.value
        #expect(ran.withLock { $0 } == ["a", "c"], "every hook of the batch ran before its first caller was answered")
        await #expect(throws: Refused.self) { try await failing.value }
        try await last.value

        // A transaction that cannot commit runs no hook.
        let before = ran.withLock { $0.count }
        let again = try HeldDatabase()
        let valid = try await again.enqueue { db in
            try db.execute(sql: "INSERT INTO note (text) VALUES ('x')")
            again.database.afterCommit(db) { ran.withLock { $0.append("x") } }
        }
        let dangling = try await again.enqueue { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            try db.execute(sql: "INSERT INTO child (parent) VALUES (999)")
        }
        try await again.release(whenWaiting: 2)
        await #expect(throws: DatabaseError.self) { try await valid.value }
        await #expect(throws: DatabaseError.self) { try await dangling.value }
        #expect(ran.withLock { $0.count } == before)

        // Outside a group commit (a plain write of the pool) a hook runs after that commit.
        try await again.database.pool.write { db in
            try db.execute(sql: "INSERT INTO note (text) VALUES ('plain')")
            again.database.afterCommit(db) { ran.withLock { $0.append("plain") } }
        }
        #expect(ran.withLock { $0.last } == "plain")
    }

    @Test("a lone write that throws leaves nothing behind")
    func loneFailure() async throws {
        let held = try HeldDatabase()
        let failing = try await held.enqueue { db in
            try db.execute(sql: "INSERT INTO note (text) VALUES ('half')")
            throw Refused()
        }
        try await held.release(whenWaiting: 1)
        await #expect(throws: Refused.self) { try await failing.value }
        #expect(try held.notes().isEmpty)
        // The next write goes through on its own.
        try await held.database.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('after')") }
        #expect(try held.notes() == ["after"])
    }

    @Test("when the transaction cannot even begin, the waiting writes fail with its error instead of waiting forever")
    func beginFails() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-group-begin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("test.sqlite").path
        // No busy timeout: a BEGIN that meets another connection's write lock fails at once.
        let pool = try DatabasePool(path: file)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL)") }
        let commit = GroupCommit<Never>(pool: pool) { _, _ in }
        // Another connection holds the write lock until released.
        let other = try DatabaseQueue(path: file)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        other.asyncWriteWithoutTransaction { db in
            try? db.execute(sql: "BEGIN IMMEDIATE")
            locked.signal()
            release.wait()
            try? db.execute(sql: "ROLLBACK")
        }
        locked.wait()
        let writes = (0..<3).map { index in
            Task { try await commit.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: ["\(index)"]) } }
        }
        for write in writes {
            let error = await #expect(throws: DatabaseError.self) { try await write.value }
            #expect(error?.resultCode == .SQLITE_BUSY)
        }
        release.signal()
        try await other.writeWithoutTransaction { _ in }  // the lock is gone
        // The queue is not stuck: the next write goes through.
        try await commit.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('after')") }
        #expect(try await pool.read { db in try String.fetchAll(db, sql: "SELECT text FROM note") } == ["after"])
    }

    @Test("writeEach queues its writes as writes of their own: each runs at most twice, and hooks once, when one of them throws")
    func writeEachRunsAtMostTwice() async throws {
        let held = try HeldDatabase()
        let runs = Mutex<[String: Int]>([:])
        let hooked = Mutex<[String]>([])
        func insert(_ text: String, fail: Bool = false) -> @Sendable (Database) throws -> Void {
            { db in
                runs.withLock { $0[text, default: 0] += 1 }
                try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [text])
                held.database.afterCommit(db) { hooked.withLock { $0.append(text) } }
                if fail { throw Refused() }
            }
        }
        // Queued behind another caller's write that throws, in one transaction: the shared pass
        // stops at the first failure, then every write runs once more in a savepoint of its own.
        let other = try await held.enqueue(insert("other"))
        let eachWrites = [insert("a"), insert("b", fail: true), insert("c")]
        let each = Task { await held.database.writeEach(eachWrites) }
        try await held.waitUntil(waiting: 4)
        let failing = try await held.enqueue(insert("z", fail: true))
        try await held.release(whenWaiting: 5)
        let outcomes = await each.value
        try await other.value
        await #expect(throws: Refused.self) { try await failing.value }
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true])
        #expect(runs.withLock { [$0["other"], $0["a"], $0["b"], $0["c"], $0["z"]] } == [2, 2, 2, 1, 1])
        #expect(try held.notes() == ["a", "c", "other"])
        #expect(hooked.withLock { $0 } == ["other", "a", "c"], "one hook per committed write")
        #expect(held.commits.count.withLock { $0 } == 1)
    }

    @Test("writes and reads run on GRDB's queues, never on the caller's thread, and a write's hook runs before it returns")
    func accessesLeaveTheCallersThread() async throws {
        try await withNoteDatabase { database in
            let hooked = Mutex<[String]>([])
            // No suspension between here and the access: the task is on this thread when it starts.
            let caller = pthread_self()
            let wroteOn = try await database.write { db in
                try db.execute(sql: "INSERT INTO note (text) VALUES ('written')")
                database.afterCommit(db) { hooked.withLock { $0.append("written") } }
                return pthread_self()
            }
            #expect(pthread_equal(caller, wroteOn) == 0, "the write ran on its caller's thread")
            #expect(hooked.withLock { $0 } == ["written"])
            let reader = pthread_self()
            let (texts, readOn) = try await database.read { db in (try String.fetchAll(db, sql: "SELECT text FROM note"), pthread_self()) }
            #expect(pthread_equal(reader, readOn) == 0, "the read ran on its caller's thread")
            #expect(texts == ["written"])
            // Many reads at once all answer, batched, and see the write.
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") ?? -1 } }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 1, count: 200))
        }
    }

    /// Runs `body` with a new database in a temporary folder that has a `note (text)` table.
    private func withNoteDatabase(_ body: (StoryBridgeDatabase) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try StoryBridgeDatabase(file: folder.appendingPathComponent("test.sqlite"))
        try await database.writeSeparately { db in try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL)") }
        try await body(database)
    }
}
