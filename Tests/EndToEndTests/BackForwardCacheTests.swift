import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Two slides that load the project's storyclm.js; the first keeps a mark in its memory, which
/// survives only when the browser shows the same document again from its back/forward cache.
private func twoSlides() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-bfcache-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let library = String(decoding: try Data(contentsOf: repositoryRoot.appendingPathComponent("js/storyclm.js")), as: UTF8.self)
    for (name, title) in [("index.html", "first"), ("second.html", "second")] {
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>\(title)</title><script>\(library)</script></head>
        <body>\(title)</body></html>
        """.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return root
}

/// The feed's connection entries, `[slide, connected]`, once `condition` holds for them (polled;
/// after 20 s, an issue naming the entries there are).
private func connections(of host: TestHost, until condition: ([[String]]) -> Bool) async throws -> [[String]] {
    let deadline = ContinuousClock.now + .seconds(20)
    while true {
        let entries = host.runtime.feed.recentEntries.filter { $0["type"] == "connection" }.map { entry in
            [entry["slide"]?.stringValue ?? "?", entry["connected"] == true ? "connected" : "closed"]
        }
        if condition(entries) { return entries }
        guard ContinuousClock.now < deadline else {
            Issue.record("the feed's connections never met the condition: \(entries)")
            return entries
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

@Suite("Slides in the browser's back/forward cache, in headless Chromium", .serialized)
struct BackForwardCacheTests {
    @Test("a slide left closes its socket; shown again from the cache it is a new page load over a new socket, and its calls are answered")
    func shownAgainFromTheCache() async throws {
        try await withBrowser(folders: [try twoSlides()]) { host, page in
            try await page.openSlide(on: host)
            try await page.evaluate("window.mark = 'kept'")
            let firstLoad = try #require(try await page.evaluate("window.__storybridge.pageLoad").stringValue)
            try await page.navigate(to: host.slideURL(slide: "second.html"))
            try await page.waitForSlide("second.html")
            // The first slide's socket was closed when it was left (pagehide), not kept open in the cache.
            _ = try await connections(of: host) { $0.contains(["index.html", "closed"]) }

            try await page.evaluate("history.back()")
            // The same document (its mark is there): the browser kept it, and it connects again.
            #expect(try await page.waitFor("window.mark === 'kept' && location.pathname.endsWith('/index.html')") == true)
            try await page.waitForSlide("index.html")
            let secondLoad = try #require(try await page.evaluate("window.__storybridge.pageLoad").stringValue)
            #expect(secondLoad != firstLoad)
            let entries = try await connections(of: host) { entries in
                entries.filter { $0 == ["index.html", "connected"] }.count == 2 && entries.contains(["second.html", "closed"])
            }
            #expect(entries.filter { $0[1] == "connected" }.map(\.[0]) == ["index.html", "second.html", "index.html"])

            // Its calls are answered over the new socket, once each.
            try await page.evaluate("StoryCLM.Presentation.GetInfo(function (answer) { window.info = answer.status; })")
            #expect(try await page.waitFor("window.info") == "Success")
            // The host took it as a new visit of the slide: the second slide's view was recorded.
            let views = try await recordedSlideViews(of: page, on: host) { $0.count >= 2 }
            #expect(views == ["index.html", "second.html"])
        }
    }
}
