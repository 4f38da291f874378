import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Reads the next inspector feed entry of `type` (skipping others), or nil after the timeout.
private func nextEntry(_ feed: WebSocketTextConnection, type: String, where matches: (JSONValue) -> Bool = { _ in true })
    async -> JSONValue?
{
    let until = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < until {
        guard let text = await feed.receive(timeout: .seconds(20)), let entry = try? JSONValue.parse(text) else { return nil }
        if entry["type"]?.stringValue == type, matches(entry) { return entry }
    }
    return nil
}

@Suite("Inspector feed and snapshot over a real server")
struct InspectorFeedTests {
    @Test("the feed replays history, then streams each request, answer and event; big Data is clipped")
    func liveFeed() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        let viewer = try await host.connectViewer(slide: "index.html", viewerId: "inspected-viewer")
        _ = try await viewer.request("getUserInfo")

        let wsBase = host.baseURL.replacingOccurrences(of: "http://", with: "ws://")
        let feed = try await WebSocketTextConnection.connect(url: wsBase + "/__storybridge/inspector/ws?token=" + host.server.token)
        // History first: the connection and the request made before the inspector opened.
        let earlier = await nextEntry(feed, type: "exchange") { $0["command"] == "getUserInfo" }
        #expect(earlier?["viewer"] == "inspected-viewer")
        #expect(earlier?["status"] == "Success")
        #expect(earlier?["code"] == 200)
        #expect(await nextEntry(feed, type: "live") != nil)

        // Then live entries, with the request's Data clipped to a preview when it is large.
        let big = String(repeating: "x", count: 20_000)
        let answer = try await viewer.request("setCustomEvent", data: ["key": "note", "value": .string(big)])
        #expect(answer.status == .success)
        let live = await nextEntry(feed, type: "exchange") { $0["command"] == "setCustomEvent" }
        #expect(live?["data"]?["truncated"] == true)
        #expect((live?["data"]?["bytes"]?.intValue ?? 0) > 20_000)
        #expect((live?["data"]?["preview"]?.stringValue?.count ?? 0) < 600)
        #expect(live?["ms"]?.doubleValue != nil)

        // A failure carries its code and message; a host event is streamed too.
        _ = try await viewer.request("noSuchCommand")
        let failure = await nextEntry(feed, type: "exchange") { $0["command"] == "noSuchCommand" }
        #expect(failure?["status"] == "Failure")
        #expect(failure?["code"] == 400)
        #expect(failure?["message"]?.stringValue?.contains("noSuchCommand") == true)
        _ = try await viewer.request("hideCloseBtn")
        let event = await nextEntry(feed, type: "event") { $0["name"] == "chrome" }
        #expect(event?["viewer"] == "inspected-viewer")
        #expect(event?["data"]?["closeButton"] == false)

        await viewer.close()
        let gone = await nextEntry(feed, type: "connection") { $0["connected"] == false }
        #expect(gone?["viewer"] == "inspected-viewer")
        await feed.close()
        await host.stop()
    }

    @Test("the snapshot shows viewer state, the session with its records, and the upload queue")
    func snapshot() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        let viewer = try await host.connectViewer(slide: "index.html", viewerId: "snap-viewer")
        _ = try await viewer.request("setCustomEvent", data: ["key": "score", "value": "5"])
        _ = try await viewer.request("hideMapBtn")
        let response = try await httpGet(host.baseURL + "/__storybridge/inspector/snapshot?token=" + host.server.token)
        #expect(response.status == 200)
        let snapshot = try JSONValue.parse(response.body)
        let viewers = snapshot["viewers"]?.arrayValue ?? []
        let state = try #require(viewers.first { $0["viewer"] == "snap-viewer" })
        #expect(state["connected"] == true)
        #expect(state["slide"] == "index.html")
        #expect(state["presentation"]?["id"] == 1)
        #expect(state["history"] == ["index.html"])
        #expect(state["chrome"]?["mapButton"] == false)
        let sessionId = try #require(state["sessionId"]?.stringValue)
        let session = try #require(snapshot["sessions"]?.arrayValue?.first { $0["sessionId"]?.stringValue == sessionId })
        #expect(session["current"] == true)
        #expect(session["customEvents"]?.arrayValue?.first?["key"] == "score")
        #expect(snapshot["upload"]?["enabled"] == false)
        #expect(snapshot["upload"]?["queued"] == 0)
        await viewer.close()
        await host.stop()
    }

    @Test("inspector addresses refuse a missing or wrong token with 403 and say where the right address is")
    func needsToken() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        for path in ["/__storybridge/inspector", "/__storybridge/inspector?token=wrong", "/__storybridge/inspector/snapshot"] {
            let response = try await httpGet(host.baseURL + path)
            #expect(response.status == 403, "\(path)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("token"))
        }
        let page = try await httpGet(host.inspectorURL)
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: page.body, as: UTF8.self).contains("/__storybridge/inspector/inspector.js"))
        let wsBase = host.baseURL.replacingOccurrences(of: "http://", with: "ws://")
        let feed = try await WebSocketTextConnection.refused(url: wsBase + "/__storybridge/inspector/ws?token=wrong")
        #expect(feed?.serverCloseFrame?.closeCode == .unknown(4403))
        await host.stop()
    }
}
