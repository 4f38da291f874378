import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

@Suite("Idle viewers leave memory and come back")
struct ViewerLifetimeTests {
    @Test("a viewer idle past the idle time leaves memory; its tab comes back with its history, navigation data, chrome and session")
    func evictedViewerContinues() async throws {
        let lifetime = ViewerLifetime(idleTime: .seconds(30 * 60), sessionTimeout: .seconds(2 * 3600))
        try await withLongRunHost(lifetime: lifetime) { host, clock, _ in
            let first = try await host.connectViewer(slide: "index.html")
            #expect(await first.nextEvent(named: "hello") != nil)
            #expect(try await first.request("setCustomEvent", data: ["key": "k", "value": "v"]).status == .success)
            let sessionId = try #require(try await first.request("getCurrentSessions").data["sessionId"]?.stringValue)
            _ = try await first.request("go", data: ["slideName": "products.html", "data": ["from": "index"]])
            await first.close()
            let productsLoad = UUID().uuidString
            let second = try await host.connectViewer(slide: "products.html", viewerId: first.viewerId, pageLoad: productsLoad)
            let hello = try #require(await second.nextEvent(named: "hello"))
            #expect(hello.data["navigationData"] == ["from": "index"])
            #expect(try await second.request("hideCloseBtn").status == .success)
            let before = try #require(await host.runtime.viewers.existingViewer(id: first.viewerId)?.state)
            await second.close()
            try await waitUntilIdle(host, viewerId: first.viewerId)

            clock.advance(minutes: 29)
            #expect(await host.runtime.sweepIdle().viewersEvicted == 0)
            clock.advance(minutes: 2)
            let report = await host.runtime.sweepIdle()
            #expect(report.viewersEvicted == 1)
            #expect(report.viewersInMemory == 0)
            #expect(await host.runtime.viewers.existingViewer(id: first.viewerId) == nil)
            #expect(try await host.runtime.viewers.store?.count() == 1)

            // The same page reconnecting after the eviction is not a new slide view.
            let back = try await host.connectViewer(slide: "products.html", viewerId: first.viewerId, pageLoad: productsLoad)
            let again = try #require(await back.nextEvent(named: "hello"))
            #expect(again.data["navigationData"] == ["from": "index"])
            #expect(again.data["chrome"] == before.chrome.json)
            let restored = try #require(await host.runtime.viewers.existingViewer(id: first.viewerId)?.state)
            #expect(again.data["newPageLoad"] == false)
            #expect(restored == before)
            #expect(restored.history == ["index.html", "products.html"])
            #expect(restored.openedPresentations == before.openedPresentations)
            #expect(try await back.request("getCurrentSessions").data["sessionId"] == .string(sessionId))
            #expect(try await back.request("getCustomEventByKey", data: ["key": "k"]).data == ["value": "v"])
            #expect(try await host.runtime.viewers.store?.count() == 0)
            await back.close()
        }
    }

    @Test("100 tabs that come and go: only the ones active within the idle time stay in memory")
    func memoryIsBoundedByActiveViewers() async throws {
        let lifetime = ViewerLifetime(idleTime: .seconds(10 * 60), sessionTimeout: .seconds(10 * 60))
        try await withLongRunHost(lifetime: lifetime) { host, clock, _ in
            var largest = 0
            for index in 0..<100 {
                let viewer = try await host.connectViewer(slide: "index.html", viewerId: "tab-\(index)")
                #expect(await viewer.nextEvent(named: "hello") != nil)
                #expect(try await viewer.request("setCustomEvent", data: ["key": "n", "value": .int(index)]).status == .success)
                await viewer.close()
                try await waitUntilIdle(host, viewerId: viewer.viewerId)
                clock.advance(minutes: 1)
                largest = max(largest, await host.runtime.sweepIdle().viewersInMemory)
            }
            #expect(largest <= 11)
            #expect(await host.runtime.viewers.count <= 11)
            // Every tab's visit was finished by the timeout or is still within it.
            let sessions = try await host.runtime.analytics.sessions()
            #expect(sessions.count == 100)
            #expect(sessions.filter { $0.state == .saved && $0.endedBy == .timeout }.count >= 88)
        }
    }
}

/// Waits (real time, bounded) until the host has seen the viewer's last page go.
func waitUntilIdle(_ host: TestHost, viewerId: String) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if let viewer = await host.runtime.viewers.existingViewer(id: viewerId), viewer.idleSince != nil { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("viewer \(viewerId) did not become idle")
}
