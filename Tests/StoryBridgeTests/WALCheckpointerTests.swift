import Foundation
import GRDB
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// The write-ahead log is copied into the database file by the background checkpointer, never by
/// a commit.
@Suite("WAL checkpoints in the background")
struct WALCheckpointerTests {
    private static func makeDatabase() throws -> (folder: URL, file: URL, database: StoryBridgeDatabase) {
        let folder = try scratchFolder("sb-wal")
        let file = folder.appendingPathComponent("test.sqlite")
        let database = try StoryBridgeDatabase(file: file)
        try database.pool.write { db in try db.execute(sql: "CREATE TABLE blob (id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        return (folder, file, database)
    }

    private static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    @Test("no connection of the pool checkpoints in its commits; the checkpointer copies the log into the file soon after")
    func backgroundCopiesTheLog() async throws {
        let (folder, file, database) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await database.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 0)
        #expect(try await database.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 0)

        // 3,000 writes of 1 KB each, one commit each: 3 MB of pages, three times the log size at
        // which SQLite's own checkpoint would have run in one of these commits.
        let body = String(repeating: "x", count: 1_000)
        for _ in 0..<3_000 {
            try await database.write { db in try db.execute(sql: "INSERT INTO blob (body) VALUES (?)", arguments: [body]) }
        }
        // Without more commits, the pages reach the database file within a few of the
        // checkpointer's quarter-second looks.
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.fileSize(file) < 3_000_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(Self.fileSize(file) >= 3_000_000)
        // Everything the log holds is in the file now: a checkpoint finds nothing left to copy.
        let outcome = try #require(try await database.checkpointNow())
        #expect(outcome.copiedPages == outcome.logPages)
        #expect(try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") } == 3_000)
    }

    @Test("a released database leaves one self-contained file: the log is copied and removed, as without a checkpointer")
    func releaseRemovesTheLog() async throws {
        let folder = try scratchFolder("sb-wal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("test.sqlite")
        do {
            let database = try StoryBridgeDatabase(file: file)
            try await database.write { db in
                try db.execute(sql: "CREATE TABLE note (body TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO note (body) VALUES ('kept')")
            }
            #expect(FileManager.default.fileExists(atPath: file.path + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
        let queue = try DatabaseQueue(path: file.path)
        #expect(try await queue.read { db in try String.fetchOne(db, sql: "SELECT body FROM note") } == "kept")
    }

    @Test("a database reopened after its process was killed holds every committed write, copied or not")
    func committedWritesSurviveWithoutCheckpoint() async throws {
        let (folder, file, database) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<500 {
            try await database.write { db in try db.execute(sql: "INSERT INTO blob (body) VALUES (?)", arguments: ["\(index)"]) }
        }
        // A copy of the files as a killed process leaves them (the log not yet copied, or partly),
        // opened by a new database: SQLite replays the log.
        let copy = folder.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try await database.pool.write { _ in
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(
                    at: URL(fileURLWithPath: file.path + suffix), to: copy.appendingPathComponent("test.sqlite" + suffix))
            }
        }
        let reopened = try StoryBridgeDatabase(file: copy.appendingPathComponent("test.sqlite"))
        #expect(try await reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") } == 500)
    }
}
