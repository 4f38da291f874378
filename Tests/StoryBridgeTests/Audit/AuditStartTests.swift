import Foundation
import GRDB
import Logging
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// The audit log's start-up checks (docs/design/TRUST.md 5.2, 5.3) on a real data folder: the head
/// file against the database, a database restored from an older copy, a damaged one moved aside.
@Suite("audit start-up checks")
struct AuditStartTests {
    private let logger = Logger(label: "audit-start-test")

    /// A host's start on `directory`: the database opened as serve opens it, the checks run, and
    /// `events` custom events of one session written.
    private func start(
        _ directory: DataDirectory, key: HostKey, events: Range<Int> = 0..<0
    ) async throws -> (AuditStart.Report, MovedAsideDatabase?) {
        let (database, movedAside) = try StoryBridgeDatabase.openChecked(in: directory)
        let report = try await AuditStart.open(database, key: key, checkpointEvery: 4, movedAside: movedAside, logger: logger)
        let clock = ManualHostClock()
        let store = AnalyticsStore(database: database, clock: clock)
        let stamp = RecordStamp(created: clock.now, timeZone: 1, latitude: 0, longitude: 0)
        if !events.isEmpty {
            try await store.insert(
                SessionRecord(
                    id: "s\(events.lowerBound)", presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0,
                    slidesCount: 0, state: .inProgress, complete: false))
        }
        for index in events {
            try await store.upsert(
                CustomEventRecord(
                    id: "e\(index)", sessionId: "s\(events.lowerBound)", presentationId: 1, userId: "u", key: "k\(index)",
                    value: "\(index)", stamp: stamp))
        }
        try await AuditStart.stop(database)
        return (report, movedAside)
    }

    private func folder() throws -> DataDirectory {
        let directory = DataDirectory(try scratchFolder("sb-audit-start"))
        try directory.prepare()
        return directory
    }

    private func kinds(_ file: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: file.path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT kind FROM auditEntry ORDER BY position") }
    }

    @Test("a first start, a clean stop and a restart: host.started says so; the log verifies")
    func cleanRestart() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        let key = HostKey()
        let (first, _) = try await start(directory, key: key, events: 0..<3)
        #expect(first.previousStop == "unknown" && first.headFile == "missing" && first.gap == nil)
        let (second, _) = try await start(directory, key: key)
        #expect(second.previousStop == "clean" && second.headFile == "ok" && second.gap == nil)
        let report = try AuditVerifier(file: directory.database).verify()
        #expect(report.findings.isEmpty, "\(report.findings.map(\.line))")
        #expect(try kinds(directory.database).filter { $0 == AuditKind.hostStarted }.count == 2)
    }

    @Test("a database restored from an older copy: the head file is ahead, chain.gap is recorded and named until acknowledged")
    func headAheadOfTheDatabase() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        let key = HostKey()
        _ = try await start(directory, key: key, events: 0..<2)
        let copy = directory.root.appendingPathComponent("older-copy.sqlite")
        do {
            let database = try StoryBridgeDatabase(file: directory.database)
            try database.pool.backup(to: try DatabaseQueue(path: copy.path))
        }
        _ = try await start(directory, key: key, events: 10..<16)
        // The operator puts the older copy back.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.database.path + suffix) }
        try FileManager.default.copyItem(at: copy, to: directory.database)
        let (restarted, _) = try await start(directory, key: key)
        let gap = try #require(restarted.gap)
        #expect(gap.contains("were lost"), "\(gap)")
        let kinds = try kinds(directory.database)
        #expect(Array(kinds.suffix(3)) == [AuditKind.chainGap, AuditKind.hostStarted, AuditKind.checkpoint], "\(kinds)")
        let database = try StoryBridgeDatabase(file: directory.database)
        let open = try await AuditGapRecord.open(in: database)
        #expect(open.count == 1 && open[0].reason == gap)
        let report = try AuditVerifier(file: directory.database).verify()
        #expect(report.findings.map(\.kind) == [.chainGap], "\(report.findings.map(\.line))")
        // The operator takes note: no longer open, no longer a finding.
        #expect(try await AuditGapRecord.acknowledge(in: database, at: Date()) == [open[0].position])
        #expect(try await AuditGapRecord.open(in: database).isEmpty)
        #expect(try AuditVerifier(file: directory.database).verify().findings.isEmpty)
    }

    @Test("a damaged database moved aside: the fresh chain continues from the old head, and audit verify reads the moved file")
    func damagedDatabaseContinued() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        let key = HostKey()
        _ = try await start(directory, key: key, events: 0..<5)
        let before = try kinds(directory.database).count
        try damage(directory.database)
        let (report, movedAside) = try await start(directory, key: key, events: 20..<22)
        let moved = try #require(movedAside)
        #expect(report.continued == moved.movedTo.lastPathComponent)
        let queue = try DatabaseQueue(path: directory.database.path)
        let first = try await queue.read { db in try AuditEntry.order(AuditEntry.CodingKeys.position).fetchOne(db) }
        try queue.close()
        #expect(first?.kind == AuditKind.chainContinued && first?.position == before + 1)
        let verified = try AuditVerifier(file: directory.database).verify()
        #expect(verified.findings.isEmpty, "\(verified.findings.map(\.line))")
        #expect(verified.segments == 2)
        let live = try kinds(directory.database).count
        #expect(verified.entries == live + before)
    }

    /// Writes garbage over the root page of an index of the analytics tables, after folding the
    /// write-ahead log into the file: `PRAGMA integrity_check` fails, the log's own table reads.
    private func damage(_ file: URL) throws {
        let queue = try DatabaseQueue(path: file.path)
        let (root, pageSize) = try queue.writeWithoutTransaction { db -> (Int, Int) in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            let root = try Int.fetchOne(
                db, sql: "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'customEvent' ORDER BY rootpage LIMIT 1")
            return (root ?? 0, try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        }
        try queue.close()
        #expect(root > 1)
        let handle = try FileHandle(forUpdating: file)
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0xFF, count: pageSize))
        try handle.close()
    }
}
