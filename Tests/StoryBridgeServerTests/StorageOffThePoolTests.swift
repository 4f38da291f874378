import CWALSyncProbe
import Foundation
import GRDB
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import Testing

@Suite("Storage off the cooperative pool, and durable")
struct StorageOffThePoolTests {
    /// How long the other connection holds the write lock: under the host's busy timeout (10 s),
    /// past which a waiting write fails instead of waiting on.
    static let lockHeld = Duration.seconds(8)

    /// A host with two open pages, one that writes and one that reads, and the write lock of its
    /// database held by another connection.
    struct LockedHost {
        let folder: URL
        let host: TestHost
        let writer: ViewerClient
        let reader: ViewerClient
        let sessionId: String
        let lock: DatabaseWriteLock

        static func start() async throws -> LockedHost {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-offpool-\(UUID().uuidString)")
            let directory = DataDirectory(folder)
            let host = try await TestHost.start(presentationFolders: [demoFolder], dataDirectory: directory)
            let writer = try await host.connectViewer(slide: "index.html")
            let reader = try await host.connectViewer(slide: "products.html")
            #expect(await writer.nextEvent(named: "hello") != nil)
            #expect(await reader.nextEvent(named: "hello") != nil)
            let sessionId = try #require(try await writer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            let lock = try await DatabaseWriteLock.take(directory.database)
            return LockedHost(folder: folder, host: host, writer: writer, reader: reader, sessionId: sessionId, lock: lock)
        }

        func stop() async {
            // Released already unless the test failed first; a second release does nothing.
            try? await lock.release()
            await writer.close()
            await reader.close()
            await host.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test(
        "while other connections hold the write locks of two hosts, memory commands of open pages and slide loads answer promptly; writes are answered once released, none lost"
    )
    func writeLockDelaysOnlyWrites() async throws {
        // Two hosts: a write that waited on its caller's thread parked one cooperative thread per
        // database, and with two, every thread of this 2-core machine's pool.
        var hosts: [LockedHost] = []
        do {
            for _ in 0..<2 { hosts.append(try await LockedHost.start()) }
            let held = ContinuousClock.now
            let writes = hosts.map { locked in
                (0..<5).map { index in
                    BridgeRequest(
                        command: "setCustomEvent", data: ["key": .string("k\(index)"), "value": "v"], guid: locked.writer.makeGUID())
                }
            }
            for (locked, sent) in zip(hosts, writes) { for write in sent { locked.writer.send(write) } }
            // Order, not time: every answer and slide below arrives while the writes still wait
            // for the locks, which this test releases only after the loop. One that waited behind
            // a write would come after the release, never (the request's own limit fails it).
            var rounds = 0
            while ContinuousClock.now - held < Self.lockHeld - .milliseconds(500) || rounds < 2 {
                for (locked, sent) in zip(hosts, writes) {
                    for command in ["getCurrentSlideName", "hideMapBtn"] {
                        let answer = try await locked.reader.request(command, timeout: .seconds(15))
                        #expect(answer.status == .success, "\(command): \(answer)")
                    }
                    let slide = try await httpGet(locked.host.slideURL(slide: "details.html"))
                    #expect(slide.status == 200)
                    let waiting = sent.allSatisfy { locked.writer.answerCount(for: $0.guid ?? "") == 0 }
                    #expect(waiting, "a write was answered while its lock was held")
                }
                rounds += 1
                try await Task.sleep(for: .milliseconds(200))
            }
            for (locked, sent) in zip(hosts, writes) {
                // The writes waited for the lock.
                #expect(sent.allSatisfy { locked.writer.answerCount(for: $0.guid ?? "") == 0 })
                try await locked.lock.release()
            }
            for (locked, sent) in zip(hosts, writes) {
                for write in sent {
                    #expect(await locked.writer.answer(to: write.guid ?? "", timeout: .seconds(20))?.status == .success)
                }
                let stored = try await locked.host.runtime.analytics.customEvents(sessionId: locked.sessionId).map(\.key)
                #expect(stored == (0..<5).map { "k\($0)" })
            }
        } catch {
            for locked in hosts { await locked.stop() }
            throw error
        }
        for locked in hosts { await locked.stop() }
    }

    @Test("a write command is answered only after the write-ahead log holding it was synced")
    func answeredWritesAreSynced() async throws {
        #expect(wal_sync_probe_install() == 0, "the probe is the default VFS")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-durable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(folder)
        try directory.prepare()
        // SQLite names the log from the database's full path, symbolic links resolved.
        let resolved = folder.resolvingSymlinksInPath().appendingPathComponent(directory.database.lastPathComponent)
        wal_sync_probe_watch(resolved.path)
        let host = try await TestHost.start(presentationFolders: [demoFolder], dataDirectory: directory)
        do {
            let synchronous = try await host.runtime.database.pool.writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "PRAGMA synchronous")
            }
            #expect(synchronous == 2, "the writer connection is synchronous = FULL")
            let viewer = try await host.connectViewer(slide: "index.html")
            #expect(await viewer.nextEvent(named: "hello") != nil)
            #expect(wal_sync_probe_read().writes > 0, "the probe watches the host's log")
            for index in 0..<5 {
                let before = wal_sync_probe_read()
                let answer = try await viewer.request("setCustomEvent", data: ["key": .string("k\(index)"), "value": "v"])
                let after = wal_sync_probe_read()
                #expect(answer.status == .success)
                #expect(after.writes > before.writes, "the write went to the log")
                #expect(after.syncs > before.syncs, "the log was synced before the answer")
                #expect(after.writes_synced == after.writes, "everything in the log was synced before the answer")
            }
            await viewer.close()
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }
}
