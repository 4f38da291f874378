import Foundation
import Logging
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import Testing

/// A host with its own data folder, so tests can read the analytics it writes.
func withAnalyticsHost(
    policy: ViewerPolicy = ViewerPolicy(closeDecision: .ask, restoreDecision: .new),
    identity: HostIdentity = HostIdentity(), clock: any HostClock = SystemHostClock(),
    _ body: (TestHost, DataDirectory) async throws -> Void
) async throws {
    let directory = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("sb-analytics-\(UUID().uuidString)"))
    let host = try await TestHost.start(
        presentationFolders: [demoFolder, try secondPresentationFolder()],
        catalogs: [.init(id: 1, name: "Demo"), .init(id: 2, name: "Second")], identity: identity, policy: policy,
        dataDirectory: directory, clock: clock)
    try await host.use { try await body($0, directory) }
}

@Suite("Analytics of a scripted visit")
struct AnalyticsTests {
    @Test("a visit produces a session, slide views with durations (the time the host's clock moved) and causes, and upserted custom events")
    func scriptedVisit() async throws {
        let clock = ManualHostClock()
        try await withAnalyticsHost(clock: clock) { host, _ in
            let first = try await host.connectViewer(slide: "index.html")
            // The page load (and the slide's entry time) is recorded before the host says hello.
            #expect(await first.nextEvent(named: "hello") != nil)
            clock.advance(by: .seconds(3))
            _ = try await first.request("go", data: ["slideName": "products.html"])
            await first.close()
            let second = try await host.connectViewer(slide: "products.html", viewerId: first.viewerId)
            #expect(try await second.request("setCustomEvent", data: ["key": "answer", "value": "1"]).status == .success)
            #expect(try await second.request("setCustomEvent", data: ["key": "answer", "value": 42]).status == .success)
            #expect(try await second.request("setCustomEvent", data: ["key": "liked", "value": ["a": true]]).status == .success)
            #expect(try await second.request("getCustomEventByKey", data: ["key": "answer"]).data == ["value": "42"])
            #expect(try await second.request("getCustomEventByKey", data: ["key": "nope"]).errorCode == 404)
            #expect(
                try await second.request("getCustomEventsObject", data: ["sessionId": "", "contentId": ""]).data
                    == ["answer": "42", "liked": #"{"a":true}"#])

            let current = try await second.request("getCurrentSessions").data
            let sessionId = try #require(current["sessionId"]?.stringValue)
            #expect(current["state"] == 0)
            #expect(current["complete"] == false)
            #expect(current["slidesCount"] == 1)
            let slides = try #require(current["slides"]?.arrayValue)
            #expect(slides.first?["name"] == "index.html")
            #expect(slides.first?["duration"] == 3)
            #expect(slides.first?["created"] == .string(AnalyticsFormat.timestamp(clock.now.addingTimeInterval(-3))))

            clock.advance(by: .seconds(5))

            second.send(BridgeRequest(command: "setSessionComplete"))
            second.send(BridgeRequest(command: "closePresentation", data: ["mode": 1]))
            #expect(await second.nextEvent(named: "closed") != nil)
            await second.close()

            let store = host.runtime.analytics
            let session = try #require(try await store.session(id: sessionId))
            #expect(session.state == .saved)
            #expect(session.complete)
            let views = try await store.slideViews(sessionId: sessionId)
            #expect(views.map(\.slideName) == ["index.html", "products.html"])
            #expect(views.map(\.cause) == ["go", "close"])
            #expect(views.map(\.duration) == [3, 5])
            #expect(session.duration == 8)
            #expect(views.map(\.navigation) == ["in", "in"])
            #expect(try await store.customEvents(sessionId: sessionId).count == 2)
            // Saving queued the session and every record for upload.
            let status = try await store.uploadStatus()
            #expect(status.queued == 1 + 2 + 2)
        }
    }

    @Test("getSessions and getSessionById answer from the records; unknown ids are 404")
    func sessionCommands() async throws {
        try await withAnalyticsHost { host, _ in
            let viewer = try await host.connectViewer()
            let id = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            let list = try await viewer.request("getSessions").data
            #expect(list.arrayValue?.contains { $0["sessionId"] == .string(id) && $0["presentationId"] == 1 } == true)
            let byId = try await viewer.request("getsessionbyid", data: ["id": .string(id)])
            #expect(byId.data["sessionId"] == .string(id))
            #expect(byId.data["slides"] == [])
            #expect(try await viewer.request("getSessionById", data: ["id": "missing"]).errorCode == 404)
            await viewer.close()
        }
    }

    @Test("open of another presentation leaves the session in state 3; the new one starts at 0")
    func openLeavesStateThree() async throws {
        try await withAnalyticsHost { host, _ in
            let viewer = try await host.connectViewer()
            let firstSession = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            _ = try await viewer.request("open", data: ["presId": 2])
            await viewer.close()
            let there = try await host.connectViewer(presentationId: 2, slide: "index.html", viewerId: viewer.viewerId)
            let secondSession = try await there.request("getCurrentSessions").data
            #expect(secondSession["sessionId"] != .string(firstSession))
            #expect(secondSession["presentationId"] == 2)
            #expect(try await host.runtime.analytics.session(id: firstSession)?.state == .leftByOpen)
            #expect(try await host.runtime.analytics.slideViews(sessionId: firstSession).map(\.cause) == ["open"])
            await there.close()
        }
    }

    @Test("closing without saving sets state 2 and queues nothing")
    func discard() async throws {
        try await withAnalyticsHost { host, _ in
            let viewer = try await host.connectViewer()
            let id = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            viewer.send(BridgeRequest(command: "closePresentation", data: ["mode": 2]))
            _ = await viewer.nextEvent(named: "closed")
            #expect(try await host.runtime.analytics.session(id: id)?.state == .notSaved)
            #expect(try await host.runtime.analytics.uploadStatus().queued == 0)
            await viewer.close()
        }
    }

    @Test("an unfinished session is continued when the viewer chooses to restore it")
    func restore() async throws {
        try await withAnalyticsHost(policy: ViewerPolicy(closeDecision: .ask, restoreDecision: .ask)) { host, _ in
            let viewer = try await host.connectViewer()
            let old = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            _ = try await viewer.request("setCustomEvent", data: ["key": "k", "value": "old"])
            _ = try await viewer.request("open", data: ["presId": 2])
            await viewer.close()
            let other = try await host.connectViewer(presentationId: 2, slide: "index.html", viewerId: viewer.viewerId)
            _ = try await other.request("open", data: ["presId": 1])
            await other.close()
            // Back in the first presentation: asked whether to continue.
            let back = try await host.connectViewer(slide: "index.html", viewerId: viewer.viewerId)
            let ask = try #require(await back.nextEvent(named: "confirmRestore"))
            #expect(ask.data["session"]?["sessionId"] == .string(old))
            _ = try await back.request("setCustomEvent", data: ["key": "k2", "value": "meanwhile"])
            _ = try await back.request(
                "storybridge.promptAnswer", data: ["prompt": ask.data["prompt"]!, "value": "restore"])
            // The merge runs once the answer arrives; wait for it.
            var current = try await back.request("getCurrentSessions").data
            let deadline = ContinuousClock.now + .seconds(10)
            while current["sessionId"] != .string(old), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                current = try await back.request("getCurrentSessions").data
            }
            #expect(current["sessionId"] == .string(old))
            #expect(current["state"] == 0)
            #expect(try await back.request("getCustomEventsObject").data == ["k": "old", "k2": "meanwhile"])
            await back.close()
        }
    }

    @Test("openMediaFile records a media view, as long as the host's clock moved, when the viewer closes it")
    func mediaView() async throws {
        let clock = ManualHostClock()
        try await withAnalyticsHost(clock: clock) { host, _ in
            let viewer = try await host.connectViewer()
            let id = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            let guid = viewer.makeGUID()
            viewer.send(BridgeRequest(command: "openMediaFile", data: ["name": "brochure.pdf"], guid: guid))
            let open = try #require(await viewer.nextEvent(named: "openMedia"))
            clock.advance(by: .seconds(7))
            _ = try await viewer.request("storybridge.promptAnswer", data: ["prompt": open.data["prompt"]!, "value": "close"])
            _ = await viewer.answer(to: guid)
            let views = try await host.runtime.analytics.mediaViews(sessionId: id)
            #expect(views.map(\.fileName) == ["brochure.pdf"])
            #expect(views.map(\.duration) == [7])
            await viewer.close()
        }
    }

    @Test("a file shown from the chrome's media library is recorded once its view is reported; bad reports are refused")
    func libraryMediaView() async throws {
        try await withAnalyticsHost { host, _ in
            let viewer = try await host.connectViewer()
            let id = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            let bad: [(JSONValue, Int)] = [
                (["fileName": "brochure.pdf", "seconds": -1], 400), (["fileName": "brochure.pdf", "seconds": "long"], 400),
                (["fileName": "brochure.pdf"], 400), (["fileName": "nope.pdf", "seconds": 3], 404), (["seconds": 3], 400),
            ]
            for (data, code) in bad {
                let answer = try await viewer.request("storybridge.mediaViewed", data: data)
                #expect(answer.errorCode == code, "\(data)")
            }
            #expect(try await host.runtime.analytics.mediaViews(sessionId: id).isEmpty)
            let answer = try await viewer.request("storybridge.mediaViewed", data: ["fileName": "brochure.pdf", "seconds": 4.6])
            #expect(answer.status == .success)
            let views = try await host.runtime.analytics.mediaViews(sessionId: id)
            #expect(views.map(\.fileName) == ["brochure.pdf"])
            #expect(views.first?.duration == 5)
            await viewer.close()
        }
    }
}
