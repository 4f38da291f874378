import Dispatch
import Foundation
import GRDB
import StoryBridge
import StoryBridgeScripts
import StoryBridgeServer
import StoryBridgeTesting
import Synchronization
import Testing

/// Holds the database's write lock from a connection of its own (a `BEGIN IMMEDIATE` transaction
/// on a GRDB queue thread, never a cooperative one) until ``release()``.
final class DatabaseWriteLock: Sendable {
    private let released: DispatchSemaphore
    private let held: Task<Void, any Error>
    private let signalled = Mutex(false)

    private init(released: DispatchSemaphore, held: Task<Void, any Error>) {
        self.released = released
        self.held = held
    }

    /// Returns once the lock is held.
    static func take(_ file: URL) async throws -> DatabaseWriteLock {
        let queue = try DatabaseQueue(path: file.path)
        let (taken, takenSink) = AsyncStream.makeStream(of: Void.self)
        let released = DispatchSemaphore(value: 0)
        let held = Task {
            defer { takenSink.finish() }
            try await queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    takenSink.yield()
                    released.wait()
                    return .rollback
                }
            }
        }
        var iterator = taken.makeAsyncIterator()
        guard await iterator.next() != nil else {
            try await held.value
            throw CocoaError(.fileLocking)
        }
        return DatabaseWriteLock(released: released, held: held)
    }

    /// Runs `body` while the lock is held, and releases it when `body` ends if `body` has not, also
    /// when it throws: a failed expectation cannot leave the host's page load (and the test host's
    /// stop, which waits for it) waiting for the lock.
    static func holding(_ file: URL, _ body: (DatabaseWriteLock) async throws -> Void) async throws {
        let lock = try await take(file)
        try await withCleanup {
            try await body(lock)
        } cleanup: {
            try? await lock.release()
        }
    }

    /// Ends the transaction (nothing was written) and closes the connection's use; once.
    func release() async throws {
        let first = signalled.withLock { signalled in
            defer { signalled = true }
            return !signalled
        }
        if first { released.signal() }
        try await held.value
    }
}

@Suite("A page load's analytics and its first answers")
struct PageLoadGateTests {
    /// Runs `body` with a host serving the demo from a data folder of its own, and that folder; then
    /// stops the host (also when `body` throws) and removes the folder.
    private func withGateHost(_ body: (TestHost, DataDirectory) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-gate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(folder)
        let host = try await TestHost.start(presentationFolders: [demoFolder], dataDirectory: directory)
        try await host.use { host in try await body(host, directory) }
    }

    @Test(
        "while the page load's slide view cannot be written, read-only requests of the next slide are answered; other requests wait for it, and it is recorded"
    )
    func readOnlyAnswersDoNotWaitForTheDatabase() async throws {
        try await withGateHost { host, directory in
            let viewerId = UUID().uuidString
            let first = try await host.connectViewer(slide: "index.html", viewerId: viewerId)
            #expect(await first.nextEvent(named: "hello") != nil)
            await first.close()

            try await DatabaseWriteLock.holding(directory.database) { lock in
                let second = try await host.connectViewer(slide: "products.html", viewerId: viewerId)
                let name = try await second.request("getCurrentSlideName")
                #expect(name.status == .success)
                #expect(name.data["slide"] == "products.html")
                // A frame that also changes memory (hideMapBtn is answered from memory, but is not
                // read-only) waits as a whole, and so does everything after it.
                let (reading, hiding) = (second.makeGUID(), second.makeGUID())
                second.sendRaw(
                    #"[{"Command":"getCurrentSlideName","GUID":"\#(reading)"},{"Command":"hideMapBtn","GUID":"\#(hiding)"}]"#)
                let event = BridgeRequest(command: "setCustomEvent", data: ["key": "k", "value": "v"], guid: second.makeGUID())
                second.send(event)
                try await Task.sleep(for: .milliseconds(100))
                // Neither hello, the mixed frame nor the write could come while the slide view waits
                // for the lock.
                #expect(second.received.withLock { $0.count } == 1)
                try await lock.release()

                #expect(await second.answer(to: event.guid ?? "")?.status == .success)
                let received = second.received.withLock { $0 }
                #expect(
                    received.map { $0["Event"]?.stringValue ?? $0["GUID"]?.stringValue ?? "" } == [
                        name.guid, "hello", reading, "chrome", hiding, event.guid,
                    ])
                let session = try await second.request("getCurrentSessions")
                let sessionId = try #require(session.data["sessionId"]?.stringValue)
                #expect(try await host.runtime.analytics.slideViews(sessionId: sessionId).map(\.slideName) == ["index.html"])
                await second.close()
            }
        }
    }

    @Test("a page load that starts a session answers nothing before the session is recorded")
    func sessionStartHoldsEveryRequest() async throws {
        try await withGateHost { host, directory in
            // The host's own database connection exists once a first viewer was served.
            let warm = try await host.connectViewer()
            #expect(await warm.nextEvent(named: "hello") != nil)
            await warm.close()

            try await DatabaseWriteLock.holding(directory.database) { lock in
                let viewer = try await host.connectViewer(slide: "index.html")
                let guid = viewer.makeGUID()
                viewer.send(BridgeRequest(command: "getCurrentSlideName", guid: guid))
                try await Task.sleep(for: .milliseconds(200))
                #expect(viewer.received.withLock { $0.isEmpty })
                try await lock.release()
                #expect(await viewer.answer(to: guid)?.data["slide"] == "index.html")
                let received = viewer.received.withLock { $0 }
                #expect(received.first?["Event"] == "hello")
                await viewer.close()
            }
        }
    }
}
