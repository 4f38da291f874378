import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The repository's folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let demoFolder = repositoryRoot.appendingPathComponent("Fixtures/presentations/demo")

/// One shared headless Chromium for the whole test process (starting one costs about a second).
actor SharedBrowser {
    static let shared = SharedBrowser()
    private var browser: HeadlessChromium?

    func get() async throws -> HeadlessChromium {
        if let browser { return browser }
        let launched = try await HeadlessChromium.launch()
        browser = launched
        return launched
    }
}

/// Runs `body` with a real host serving `folders` and a fresh tab of headless Chromium.
func withBrowser(
    folders: [URL] = [demoFolder], catalogs: [PresentationFolder.Catalog]? = nil, identity: HostIdentity = HostIdentity(),
    _ body: (TestHost, BrowserPage) async throws -> Void
) async throws {
    let host = try await TestHost.start(presentationFolders: folders, catalogs: catalogs, identity: identity)
    try await withPage(on: host) { page in try await body(host, page) }
}

/// Runs `body` with a fresh tab of headless Chromium, then closes the tab and stops `host`, also
/// when `body` throws.
func withPage(on host: TestHost, _ body: (BrowserPage) async throws -> Void) async throws {
    let page = try await SharedBrowser.shared.get().newPage()
    try await withCleanup {
        try await body(page)
    } cleanup: {
        await page.close()
        await host.stop()
    }
}

/// The feed's console entries once `condition` holds for them (polled; after 20 s, an issue saying
/// `failure` of the entries there are, and those entries).
func consoleEntries(
    of host: TestHost, until condition: ([JSONValue]) -> Bool,
    failure: ([JSONValue]) -> String = { "the feed's console entries never met the condition: \($0.map { $0.jsonString() })" }
) async throws -> [JSONValue] {
    let deadline = ContinuousClock.now + .seconds(20)
    while true {
        let entries = host.runtime.feed.recentEntries.filter { $0["type"] == "console" }
        if condition(entries) { return entries }
        guard ContinuousClock.now < deadline else {
            Issue.record(Comment(rawValue: failure(entries)))
            return entries
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Reads `read` until `done` holds of what it read, or 20 s of real time have passed; returns the
/// last read. For records the host writes after the page has moved on (a slide view is written
/// once the next page has connected, a media view once the overlay's close has reached the host).
func readHostRecords<T>(_ read: () async throws -> T, until done: (T) -> Bool) async throws -> T {
    let until = ContinuousClock.now + .seconds(20)
    var value = try await read()
    while !done(value), ContinuousClock.now < until {
        try await Task.sleep(for: .milliseconds(20))
        value = try await read()
    }
    return value
}

/// The names of the slides whose views the host recorded in the session of `page`'s viewer, read
/// until `done` holds of them (``readHostRecords(_:until:)``).
func recordedSlideViews(of page: BrowserPage, on host: TestHost, until done: ([String]) -> Bool) async throws -> [String] {
    let viewerId = try #require(try await page.evaluate("window.__storybridge.viewerId").stringValue)
    let viewer = try #require(await host.runtime.viewers.existingViewer(id: viewerId))
    let sessionId = try #require(await viewer.state.sessionId)
    return try await readHostRecords {
        try await host.runtime.analytics.slideViews(sessionId: sessionId).map(\.slideName)
    } until: {
        done($0)
    }
}

extension BrowserPage {
    /// Clicks `btn-<name>` and returns the wrapper the page wrote into `out-<name>`.
    func press(_ name: String, output: String? = nil) async throws -> JSONValue {
        let out = output ?? "out-\(name)"
        try await click("#btn-\(name)")
        let text = try await waitFor(
            "(function(){var e=document.getElementById('\(out)');return e&&e.getAttribute('data-done')==='1'?e.textContent:null;})()"
        )
        return try JSONValue.parse(text.stringValue ?? "null")
    }

    /// Clicks a button of the viewer chrome (`data-action` in its shadow root).
    func clickChrome(_ action: String) async throws {
        try await evaluate(
            "(function(){var b=window.__storybridge.chrome.root.querySelector('[data-action=\"\(action)\"]');if(!b){throw new Error('no chrome button \(action)');}b.click();return true;})()"
        )
    }

    /// Evaluates `expression` inside the chrome's shadow root (`root` is bound to it).
    func inChrome(_ expression: String) async throws -> JSONValue {
        try await evaluate("(function(root){return \(expression);})(window.__storybridge.chrome.root)")
    }

    /// Waits until `expression`, evaluated in the chrome's shadow root, is truthy.
    @discardableResult
    func waitForChrome(_ expression: String) async throws -> JSONValue {
        try await waitFor(
            "window.__storybridge && window.__storybridge.chrome && (function(root){return \(expression);})(window.__storybridge.chrome.root)"
        )
    }

    /// Opens `slide` of `host`'s first presentation and waits until it has loaded and its bridge
    /// socket is connected.
    func openSlide(_ slide: String = "index.html", on host: TestHost) async throws {
        try await navigate(to: host.slideURL(slide: slide))
        try await waitForSlide(slide)
    }

    /// Waits until the page of `slide` has loaded and its bridge socket is connected.
    func waitForSlide(_ slide: String) async throws {
        try await waitFor(
            "window.__storybridge && window.__storybridge.slide === \(JSONValue.string(slide).jsonString()) && window.__storybridge.state.connected && document.readyState === 'complete'"
        )
    }
}
