import Foundation
import GRDB
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

@Suite("Storage faults: a full database, a damaged one, a read-only folder")
struct StorageFaultTests {
    @Test("a full database: writes answer 507, reads go on, one warning per episode, recovery on its own, nothing committed lost")
    func fullDatabase() async throws {
        try await withLongRunHost(lifetime: ViewerLifetime()) { host, _, _ in
            let page = try await host.connectViewer(slide: "index.html")
            #expect(await page.nextEvent(named: "hello") != nil)
            let database = host.runtime.database
            // Cap the database just above what it holds now (the writer connection keeps the cap).
            let pages = try await database.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
            try await database.pool.write { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 4)") }

            let bulky = String(repeating: "x", count: 3_000)
            var answered: [String] = []
            var failure: BridgeResponse?
            for index in 0..<50 {
                let answer = try await page.request("setCustomEvent", data: ["key": .string("k\(index)"), "value": .string(bulky)])
                if answer.status == .success {
                    answered.append("k\(index)")
                } else {
                    failure = answer
                    break
                }
            }
            let refused = try #require(failure)
            #expect(refused.errorCode == 507)
            #expect(refused.errorMessage.contains("storage is full"))
            #expect(!answered.isEmpty)
            // More failing writes in the same episode: still 507, still one episode.
            #expect(try await page.request("setCustomEvent", data: ["key": "more", "value": .string(bulky)]).errorCode == 507)
            #expect(database.health.episodes == 1)
            #expect(database.health.currentFailure != nil)
            // Reads are answered.
            #expect(try await page.request("getCustomEventByKey", data: ["key": .string(answered[0])]).data["value"] == .string(bulky))
            #expect(try await page.request("getUserInfo").status == .success)
            let metrics = try await httpGet(host.baseURL + "/__storybridge/metrics?token=\(host.server.token)")
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(text.contains("storybridge_storage_failing 1"))
            #expect(text.contains("storybridge_storage_failure_episodes_total 1"))

            // Space comes back: the next write succeeds without a restart and the episode ends.
            try await database.pool.write { db in try db.execute(sql: "PRAGMA max_page_count = 1000000") }
            #expect(try await page.request("setCustomEvent", data: ["key": "after", "value": "1"]).status == .success)
            #expect(database.health.currentFailure == nil)
            let after = String(
                decoding: try await httpGet(host.baseURL + "/__storybridge/metrics?token=\(host.server.token)").body, as: UTF8.self)
            #expect(after.contains("storybridge_storage_failing 0"))
            let sessionId = try #require(try await page.request("getCurrentSessions").data["sessionId"]?.stringValue)
            let stored = Set(try await host.runtime.analytics.customEvents(sessionId: sessionId).map(\.key))
            #expect(stored == Set(answered + ["after"]))
            await page.close()
        }
    }

    @Test("a file that is not a database is moved aside with a timestamp and a fresh database is created")
    func notADatabase() async throws {
        try await withScratchFolder("sb-damaged") { folder in
            let directory = DataDirectory(folder)
            try Data(repeating: 0x41, count: 8192).write(to: directory.database)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let (database, movedAside) = try StoryBridgeDatabase.openChecked(in: directory, now: now)
            let moved = try #require(movedAside)
            #expect(moved.movedTo.lastPathComponent == "storybridge.sqlite.damaged-20270115T080000Z")
            #expect(FileManager.default.fileExists(atPath: moved.movedTo.path))
            #expect(moved.description.contains(moved.movedTo.path))
            #expect(try database.appliedMigrations().contains("v6-lifetime"))
            // The next start finds a sound database and moves nothing.
            try database.pool.close()
            #expect(try StoryBridgeDatabase.openChecked(in: directory).movedAside == nil)
        }
    }

    @Test("a database whose pages are damaged fails its integrity check and is moved aside; the host does not crash-loop")
    func damagedPages() async throws {
        try await withScratchFolder("sb-damaged") { folder in
            let directory = DataDirectory(folder)
            do {
                let database = try StoryBridgeDatabase(file: directory.database)
                let store = AnalyticsStore(database: database)
                let stamp = RecordStamp(at: Date(), identity: HostIdentity())
                for index in 0..<300 {
                    try await store.insert(
                        SessionRecord(
                            id: "s\(index)", presentationId: 1, viewerId: "v", userId: "u", stamp: stamp,
                            address: String(repeating: "a", count: 200), duration: 0, slidesCount: 0, state: .inProgress,
                            complete: false))
                }
                try database.pool.close()
            }
            // Scribble over the middle of the file, past the header.
            let handle = try FileHandle(forUpdating: directory.database)
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size / 2)
            handle.write(Data(repeating: 0xFF, count: 12_288))
            try handle.close()
            #expect(try StoryBridgeDatabase.integrityProblem(directory.database) != nil)
            let (database, movedAside) = try StoryBridgeDatabase.openChecked(in: directory)
            #expect(movedAside != nil)
            #expect(try await AnalyticsStore(database: database).sessions().isEmpty)
        }
    }

    @Test("a database another connection keeps locked past the wait is 'in use by another process', and nothing is moved aside")
    func lockedPastTheWait() async throws {
        try await withScratchFolder("sb-locked") { folder in
            let directory = DataDirectory(folder)
            let holder = try exclusivelyLocked(directory.database)
            defer { try? holder.inDatabase { db in try db.execute(sql: "COMMIT") } }
            let inUse = StorageSetupError.inUse(path: directory.database.path, seconds: 1)
            #expect(throws: inUse) { try StoryBridgeDatabase.openChecked(in: directory, lockWait: 0.3) }
            #expect(inUse.description.contains("is in use by another process (locked for 1 s); stop it or give another --data-dir"))
            // Still where it was, readable, and no damaged copy beside it.
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.contains("damaged") })
            #expect(try holder.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM kept") } == 1)
        }
    }

    @Test("a lock released within the wait is waited for: the database opens and nothing is moved aside")
    func lockReleasedWithinTheWait() async throws {
        try await withScratchFolder("sb-locked") { folder in
            let directory = DataDirectory(folder)
            let holder = try exclusivelyLocked(directory.database)
            // Released from a thread of its own while this one waits in the integrity check.
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
                try? holder.inDatabase { db in try db.execute(sql: "COMMIT") }
            }
            let (database, movedAside) = try StoryBridgeDatabase.openChecked(in: directory, lockWait: 10)
            #expect(movedAside == nil)
            #expect(try database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM kept") } == 1)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.contains("damaged") })
        }
    }

    @Test("a data folder that cannot be written is a clear error at start-up naming the folder")
    func readOnlyFolder() async throws {
        try await withUnwritableFolder { folder in
            do {
                _ = try StoryBridgeDatabase.openChecked(in: DataDirectory(folder))
                Issue.record("an unwritable folder was accepted")
            } catch {
                #expect("\(error)".contains(folder.path))
                #expect("\(error)".contains("cannot be written"))
            }
        }
    }

    @Test("serve on a read-only data folder exits with an error naming it")
    func serveOnReadOnlyFolder() async throws {
        try await withUnwritableFolder { folder in
            let result = try await runCLI(["serve", demoFolder.path, "--port", "0", "--data-dir", folder.path])
            #expect(result.status != 0)
            #expect(result.errors.contains(folder.path))
            // Either the data folder's own check or the first folder it makes inside it says so.
            #expect(result.errors.contains("cannot be written") || result.errors.contains("permission denied"))
            #expect(!result.errors.contains("NSCocoaErrorDomain") && !result.errors.contains("could not be completed"))
        }
    }
}

/// A folder this process cannot write to. Root ignores permission bits, so as root it is a sysfs
/// folder the kernel refuses writes to; otherwise a temporary folder with mode 555.
func withUnwritableFolder(_ body: (URL) async throws -> Void) async throws {
    if getuid() == 0 {
        let folder = URL(fileURLWithPath: "/sys/kernel")
        try #require(FileManager.default.fileExists(atPath: folder.path))
        try await body(folder)
    } else {
        try await withScratchFolder("sb-readonly") { folder in
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
            try await body(folder)
        }
    }
}

/// A connection to a new database at `file` (rollback journal, as a database is while its creator
/// sets it up) holding `BEGIN EXCLUSIVE` with one committed row in table `kept`: other connections
/// can neither read nor write it until the caller runs `COMMIT` on it.
func exclusivelyLocked(_ file: URL) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true  // the transaction outlives this access
    let holder = try DatabaseQueue(path: file.path, configuration: configuration)
    try holder.inDatabase { db in
        try db.execute(sql: "CREATE TABLE kept (id INTEGER); INSERT INTO kept VALUES (1); BEGIN EXCLUSIVE")
    }
    return holder
}
