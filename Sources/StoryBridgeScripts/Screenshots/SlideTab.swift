import Foundation
import StoryBridge

/// A headless Chromium tab set up for screenshots, in a window of its own (so it renders while
/// another tab is in front): a fixed viewport of one device pixel per CSS pixel, no scrollbars,
/// and ``SettleScript`` in every document it opens.
struct SlideTab: Sendable {
    /// What the settle script saw.
    struct Settled: Sendable {
        /// Commands still unanswered when the settle timeout ended the wait.
        var unanswered: [String]
        /// Animations ended at the animation limit.
        var animationsEnded: Int
    }

    let page: BrowserPage
    let size: ViewportSize

    static func open(in browser: HeadlessChromium, size: ViewportSize) async throws -> SlideTab {
        let page = try await browser.newPage(inNewWindow: true)
        do {
            try await page.devTools.send(
                "Emulation.setDeviceMetricsOverride",
                ["width": .int(size.width), "height": .int(size.height), "deviceScaleFactor": 1, "mobile": false])
            try await page.devTools.send("Emulation.setScrollbarsHidden", ["hidden": true])
            try await page.devTools.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(SettleScript.source)])
        } catch {
            await page.close()
            throw error
        }
        return SlideTab(page: page, size: size)
    }

    /// Navigates to `url` and waits until it has loaded.
    func load(_ url: String) async throws {
        _ = try await navigate(url, then: "window.__storybridgeShots.loaded().then(function(){return true;})")
    }

    /// Navigates to `url` and waits until the slide has settled.
    func settle(_ url: String, animationLimit: Duration, timeout: Duration) async throws -> Settled {
        let limit = SlideShooter.milliseconds(animationLimit)
        let wait = SlideShooter.milliseconds(timeout)
        let result = try await navigate(url, then: "window.__storybridgeShots.settle(\(limit), \(wait))")
        return Settled(
            unanswered: result["unanswered"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            animationsEnded: result["animationsEnded"]?.intValue ?? 0)
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        // optimizeForSpeed: a lighter zlib level; the same pixels, a larger file, less time.
        let result = try await page.devTools.send("Page.captureScreenshot", ["format": "png", "optimizeForSpeed": true])
        guard let encoded = result["data"]?.stringValue, let data = Data(base64Encoded: encoded) else {
            throw BrowserPage.PageError.scriptFailed(expression: "Page.captureScreenshot", message: "no image data")
        }
        return data
    }

    func close() async {
        await page.close()
    }

    /// Loads `url` and evaluates `expression` (a promise) in the new document. The document being
    /// left is marked first, so the expression never runs in it; an evaluation cut short because
    /// the document was replaced while it ran is asked again of the new one.
    private func navigate(_ url: String, then expression: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let marker = UUID().uuidString
        _ = try? await page.evaluate("window.__storybridgeLeaving = '\(marker)'")
        let navigation = try await page.devTools.send("Page.navigate", ["url": .string(url)])
        if let failure = navigation["errorText"]?.stringValue, !failure.isEmpty {
            throw BrowserPage.PageError.scriptFailed(expression: "Page.navigate \(url)", message: failure)
        }
        let guarded = "(window.__storybridgeLeaving === '\(marker)' || !window.__storybridgeShots) ? null : (\(expression))"
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            do {
                // The whole wait is `timeout`'s: a promise the page settles late (a load held up
                // on a busy machine) is waited for up to the deadline, not the connection's 30 s.
                let value = try await page.evaluate(guarded, timeout: max(deadline - ContinuousClock.now, .seconds(1)))
                if value != .null { return value }
            } catch let error as DevToolsConnection.ProtocolError where error.isNavigationRace {
                // The document was replaced while the expression ran; ask the new one.
            } catch BrowserPage.PageError.scriptFailed(_, let message) where message.contains("context") {
                // The same race, reported as an exception of the evaluation.
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw BrowserPage.PageError.timedOut(condition: "\(url) loaded", seconds: Double(timeout.components.seconds), last: "")
    }
}
