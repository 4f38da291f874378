import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting

extension KioskLab {
    /// A page of the kiosk's browser: its URL and the viewer id its storybridge client keeps.
    struct ShownPage: Sendable, Equatable {
        var url: String
        /// `window.__storybridge.viewerId`; nil before the client ran (or on a page without it).
        var viewer: String?
    }

    /// What each page of the kiosk's browser shows, read through its own DevTools connection. The
    /// URL and the viewer id are read in one evaluation in the page, so both come from the same
    /// document: the target list's URL can still name the page a redirect or a navigation is
    /// leaving when the page has already loaded the next one.
    func shownPages() async -> [ShownPage] {
        var shown: [ShownPage] = []
        for target in await pageTargets() {
            guard let listedURL = target["url"]?.stringValue, let socket = socketURL(of: target) else { continue }
            let read = try? await withPage(socket) { page in
                try await page.send(
                    "Runtime.evaluate",
                    [
                        "expression": "({url: location.href, viewer: (window.__storybridge && window.__storybridge.viewerId) || null})",
                        "returnByValue": true,
                    ],
                    timeout: .seconds(5))["result"]?["value"]
            }
            shown.append(ShownPage(url: read?["url"]?.stringValue ?? listedURL, viewer: read?["viewer"]?.stringValue))
        }
        return shown
    }

    /// Waits until the browser shows one page only, under `base`, whose viewer id is known and
    /// which `accept` takes; returns it.
    func waitForViewer(
        under base: String, within limit: Duration = .seconds(60), where accept: (ShownPage) -> Bool = { _ in true }
    ) async throws -> ShownPage {
        let deadline = ContinuousClock.now + limit
        var last: [ShownPage] = []
        while ContinuousClock.now < deadline {
            last = await shownPages()
            if last.count == 1, let page = last.first, page.url.hasPrefix(base), page.viewer != nil, accept(page) { return page }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw KioskLabFailure("the kiosk's browser did not show the page awaited within \(limit) (pages: \(last)); its log:\n\(log)")
    }

    /// Runs `script` in the browser's one page.
    func evaluate(_ script: String) async throws {
        let socket = try await onlyPageSocket()
        try await withPage(socket) { page in _ = try await page.send("Runtime.evaluate", ["expression": .string(script)]) }
    }

    /// Clicks at (`x`, `y`) in the browser's one page: a pointer press and release through
    /// DevTools `Input.dispatchMouseEvent`, as a finger or a mouse would.
    func click(x: Int, y: Int) async throws {
        let socket = try await onlyPageSocket()
        try await withPage(socket) { page in
            for type in ["mousePressed", "mouseReleased"] {
                try await page.send(
                    "Input.dispatchMouseEvent",
                    ["type": .string(type), "x": .int(x), "y": .int(y), "button": "left", "buttons": .int(1), "clickCount": .int(1)])
            }
        }
    }

    private func onlyPageSocket() async throws -> String {
        let targets = await pageTargets()
        guard targets.count == 1, let socket = socketURL(of: targets[0]) else {
            throw KioskLabFailure("the kiosk's browser does not show one page: \(targets)")
        }
        return socket
    }

    private func socketURL(of target: JSONValue) -> String? {
        if let socket = target["webSocketDebuggerUrl"]?.stringValue { return socket }
        guard let port = devToolsPort, let id = target["id"]?.stringValue else { return nil }
        return "ws://127.0.0.1:\(port)/devtools/page/\(id)"
    }

    private func withPage<Result>(_ socket: String, _ body: (DevToolsConnection) async throws -> Result) async throws -> Result {
        let page = try await DevToolsConnection.connect(url: socket)
        return try await withCleanup {
            try await body(page)
        } cleanup: {
            await page.close()
        }
    }
}
