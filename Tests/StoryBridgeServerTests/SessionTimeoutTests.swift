import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

@Suite("Sessions of tabs that left end by timeout")
struct SessionTimeoutTests {
    @Test("a session whose viewer is gone past the timeout is saved up to its last activity, marked endedBy timeout and queued")
    func timedOut() async throws {
        let lifetime = ViewerLifetime(idleTime: .seconds(60 * 60), sessionTimeout: .seconds(30 * 60))
        try await withLongRunHost(lifetime: lifetime) { host, clock, _ in
            let (page, sessionId) = try await openSession(host)
            clock.advance(by: .seconds(4))
            _ = try await page.request("go", data: ["slideName": "products.html"])
            await page.close()
            let next = try await host.connectViewer(slide: "products.html", viewerId: page.viewerId)
            #expect(await next.nextEvent(named: "hello") != nil)
            clock.advance(by: .seconds(7))
            await next.close()
            try await waitUntilIdle(host, viewerId: page.viewerId)

            clock.advance(minutes: 29)
            #expect(await host.runtime.sweepIdle().sessionsTimedOut == 0)
            clock.advance(minutes: 2)
            #expect(await host.runtime.sweepIdle().sessionsTimedOut == 1)

            let store = host.runtime.analytics
            let session = try #require(try await store.session(id: sessionId))
            #expect(session.state == .saved)
            #expect(session.endedBy == .timeout)
            // Up to the last activity (the page leaving), not up to the sweep 31 minutes later.
            #expect(session.duration == 11)
            #expect(try await store.slideViews(sessionId: sessionId).map(\.cause) == ["go", "timeout"])
            let queued = try await store.outbox(status: .queued)
            let body = try #require(queued.first { $0.eventId == UploadEventId.session }?.body)
            #expect(try JSONValue.parse(body)["endedBy"] == "timeout")
            #expect(queued.count == 3)

            // The tab coming back later starts a new session.
            let later = try await host.connectViewer(slide: "products.html", viewerId: page.viewerId)
            #expect(await later.nextEvent(named: "hello") != nil)
            let newSession = try await later.request("getCurrentSessions").data["sessionId"]
            #expect(newSession != nil && newSession != .string(sessionId))
            await later.close()
        }
    }

    @Test("a tab returning within the timeout continues its session; a closed presentation says endedBy close")
    func returnsWithinTimeout() async throws {
        let lifetime = ViewerLifetime(idleTime: .seconds(60 * 60), sessionTimeout: .seconds(30 * 60))
        try await withLongRunHost(lifetime: lifetime) { host, clock, _ in
            let (page, sessionId) = try await openSession(host)
            await page.close()
            try await waitUntilIdle(host, viewerId: page.viewerId)
            clock.advance(minutes: 25)
            #expect(await host.runtime.sweepIdle().sessionsTimedOut == 0)
            let back = try await host.connectViewer(slide: "summary.html", viewerId: page.viewerId)
            #expect(await back.nextEvent(named: "hello") != nil)
            #expect(try await back.request("getCurrentSessions").data["sessionId"] == .string(sessionId))
            clock.advance(minutes: 40)
            #expect(await host.runtime.sweepIdle().sessionsTimedOut == 0)
            back.send(BridgeRequest(command: "closePresentation", data: ["mode": 1]))
            #expect(await back.nextEvent(named: "closed") != nil)
            await back.close()
            let session = try #require(try await host.runtime.analytics.session(id: sessionId))
            #expect(session.state == .saved)
            #expect(session.endedBy == .close)
        }
    }

    @Test("a viewer that left memory still has its session finished when the timeout passes")
    func timedOutAfterEviction() async throws {
        let lifetime = ViewerLifetime(idleTime: .seconds(10 * 60), sessionTimeout: .seconds(30 * 60))
        try await withLongRunHost(lifetime: lifetime) { host, clock, _ in
            let (page, sessionId) = try await openSession(host)
            clock.advance(by: .seconds(5))
            await page.close()
            try await waitUntilIdle(host, viewerId: page.viewerId)
            clock.advance(minutes: 15)
            let first = await host.runtime.sweepIdle()
            #expect(first.viewersEvicted == 1)
            #expect(first.sessionsTimedOut == 0)
            clock.advance(minutes: 20)
            #expect(await host.runtime.sweepIdle().sessionsTimedOut == 1)
            let session = try #require(try await host.runtime.analytics.session(id: sessionId))
            #expect(session.state == .saved)
            #expect(session.endedBy == .timeout)
            #expect(session.duration == 5)
            // The stored viewer keeps its place but no longer holds the session.
            let stored = try #require(try await host.runtime.viewers.store?.snapshot(id: page.viewerId))
            #expect(stored.sessionId == nil)
            #expect(stored.state.currentSlide == "index.html")
        }
    }

    @Test("with no session timeout an unfinished session waits for restore, as in the apps")
    func noTimeout() async throws {
        let lifetime = ViewerLifetime(idleTime: .seconds(10 * 60), sessionTimeout: nil)
        try await withLongRunHost(lifetime: lifetime) { host, clock, _ in
            let (page, sessionId) = try await openSession(host)
            await page.close()
            try await waitUntilIdle(host, viewerId: page.viewerId)
            clock.advance(minutes: 24 * 60)
            let report = await host.runtime.sweepIdle()
            #expect(report.sessionsTimedOut == 0)
            #expect(report.viewersEvicted == 1)
            let session = try #require(try await host.runtime.analytics.session(id: sessionId))
            #expect(session.state == .inProgress)
            #expect(session.endedBy == nil)
        }
    }

    @Test("sessions a killed run left open are finished at start-up once the timeout has passed")
    func orphansAtStartUp() async throws {
        try await withScratchFolder("sb-orphans") { folder in
            let directory = DataDirectory(folder)
            try directory.prepare()
            let database = try StoryBridgeDatabase(file: directory.database)
            let clock = ManualHostClock()
            let store = AnalyticsStore(database: database, clock: clock)
            let stamp = RecordStamp(at: clock.now, identity: HostIdentity())
            for (id, state) in [("open", SessionState.inProgress), ("left", .leftByOpen), ("closed", .notSaved)] {
                try await store.insert(
                    SessionRecord(
                        id: id, presentationId: 1, viewerId: "gone", userId: "u", stamp: stamp, address: "", duration: 0,
                        slidesCount: 0, state: state, complete: false))
            }
            clock.advance(minutes: 31)
            let host = StoryBridgeHost(
                library: PresentationLibrary([]), database: database, clock: clock,
                lifetime: ViewerLifetime(sessionTimeout: .seconds(30 * 60)))
            #expect(await host.sweepIdle().sessionsTimedOut == 2)
            #expect(try await store.session(id: "open")?.endedBy == .timeout)
            #expect(try await store.session(id: "open")?.state == .saved)
            #expect(try await store.session(id: "left")?.state == .saved)
            #expect(try await store.session(id: "closed")?.state == .notSaved)
            #expect(try await store.uploadStatus().queued == 2)
        }
    }

    /// A viewer on the deck's index page, greeted, and the id of the session it opened.
    private func openSession(_ host: TestHost) async throws -> (page: ViewerClient, sessionId: String) {
        let page = try await host.connectViewer(slide: "index.html")
        #expect(await page.nextEvent(named: "hello") != nil)
        let sessionId = try #require(try await page.request("getCurrentSessions").data["sessionId"]?.stringValue)
        return (page, sessionId)
    }
}
