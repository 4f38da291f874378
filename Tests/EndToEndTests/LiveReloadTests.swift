import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// A copy of the demo presentation in a temporary folder, for tests that edit it.
func copyOfDemo() throws -> URL {
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sb-live-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: demoFolder, to: copy)
    return copy
}

/// Replaces `old` with `new` in a file of `folder`, as an editor saving it would.
func edit(_ folder: URL, _ file: String, replacing old: String, with new: String) throws {
    let url = folder.appendingPathComponent(file)
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.contains(old), "\(file) has no '\(old)'")
    try text.replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
}

@Suite("Live reload in headless Chromium", .serialized)
struct LiveReloadTests {
    @Test("an edited slide reloads in the browser as the same viewer, session and page load; the map is re-read")
    func reloadsTheViewer() async throws {
        let folder = try copyOfDemo()
        defer { try? FileManager.default.removeItem(at: folder) }
        let host = try await TestHost.start(presentationFolders: [folder])
        let clock = ManualHostClock()
        let watcher = PresentationWatcher(folder: folder, catalog: .init(id: 1), interval: .milliseconds(100), clock: clock)
        let watching = Task { await watcher.run(host: host.runtime) }
        let page = try await SharedBrowser.shared.get().newPage()
        try await withCleanup {
            // Reach products.html by `go` with navigation data, as content would.
            try await page.openSlide(on: host)
            try await page.evaluate("StoryCLM.Go('products.html', {answer: 42}); true")
            try await page.waitForSlide("products.html")
            let viewerId = try #require(try await page.evaluate("window.__storybridge.viewerId").stringValue)
            let viewer = try #require(await host.runtime.viewers.existingViewer(id: viewerId))
            let before = await viewer.state
            let sessionId = try #require(before.sessionId)
            #expect(before.history == ["index.html", "products.html"])
            try await page.evaluate("window.__beforeEdit = true; true")
            // The watcher has read the folder and waits for its next look.
            #expect(await clock.waitForSleepers())

            // Edit the slide and add a new one linked from the start slide's map.
            try edit(folder, "products.html", replacing: "</body>", with: "<p id=\"live-edit\">edited</p></body>")
            try "<!DOCTYPE html><html><head><title>New</title></head><body>new</body></html>"
                .write(to: folder.appendingPathComponent("extra.html"), atomically: true, encoding: .utf8)
            try edit(
                folder, "index.html", replacing: "<meta name=\"clm\" content=\"products.html,legacy.html\">",
                with: "<meta name=\"clm\" content=\"products.html,legacy.html,extra.html\">")
            // Nothing is re-read until the watcher's interval has passed on its clock; then all three edits are seen at once.
            #expect(host.runtime.feed.recentEntries.first { $0["type"] == "reload" } == nil)
            clock.advance(by: .milliseconds(100))

            // The page reloads by itself and shows the edit.
            try await page.waitFor(
                "!window.__beforeEdit && !!document.getElementById('live-edit') && window.__storybridge && window.__storybridge.state.connected",
                timeout: .seconds(20))
            #expect(try await page.evaluate("window.__storybridge.viewerId") == .string(viewerId))
            #expect(try await page.evaluate("JSON.stringify(window.StoryCLMNavigationData)") == #"{"answer":42}"#)

            // Same viewer, same session, no extra history entry or slide view for the reload.
            let after = await viewer.state
            #expect(after.sessionId == sessionId)
            #expect(after.history == ["index.html", "products.html"])
            #expect(after.currentSlide == "products.html")
            let navigationData = try await page.evaluate(
                "new Promise(function(done){window.__storybridge.request('getNavigationData', {}, function(a){done(JSON.stringify(a.Data));});})"
            )
            #expect(navigationData == #"{"answer":42}"#)
            let views = try await host.runtime.analytics.slideViews(sessionId: sessionId).map(\.slideName)
            #expect(views == ["index.html"])

            // The slide list and map were re-read: the new slide is on the map and can be opened.
            let map = try await page.evaluate(
                "new Promise(function(done){window.__storybridge.request('getMap', {}, function(a){done(a.Data);});})")
            #expect(map["index.html"]?.arrayValue?.contains("extra.html") == true)
            #expect(host.runtime.library.presentation(id: 1)?.hasSlide("extra.html") == true)
            try await page.evaluate("StoryCLM.Go('extra.html'); true")
            try await page.waitForSlide("extra.html")

            // The inspector's feed shows the reload with the files that changed.
            let reload = host.runtime.feed.recentEntries.first { $0["type"] == "reload" }
            let files = reload?["files"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(Set(files).isSuperset(of: ["products.html", "extra.html", "index.html"]))
        } cleanup: {
            watching.cancel()
            await page.close()
            await host.stop()
        }
    }
}
