import Foundation
import Logging
import StoryBridge

/// `storybridge kiosk`'s browser (docs/design/FLEET.md §9.2): launches Chromium in its mode with
/// a fresh profile, opens the start URL serve sends, and watches the process, the page's
/// DevTools socket and `Inspector.targetCrashed`; whichever ends it, the browser is started again
/// after ``KioskBrowserMachine``'s delay. ``run()`` supervises until its task is cancelled, then
/// closes Chromium.
package actor KioskBrowser {
    /// A picture of what the browser shows.
    package struct Screenshot: Sendable {
        /// The PNG.
        package var png: Data
        /// Its width in pixels.
        package var width: Int
        /// Its height in pixels.
        package var height: Int
    }

    /// Why there is no screenshot.
    package struct ScreenshotFailure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    private let binary: String
    private let mode: ChromiumMode
    private let profiles: URL
    private let logger: Logger
    private var machine = KioskBrowserMachine()
    private var chromium: HeadlessChromium?
    private var page: BrowserPage?

    /// A supervisor of `binary` in `mode`, keeping each launch's profile in `profiles`.
    package init(binary: String, mode: ChromiumMode, profiles: URL, logger: Logger) {
        self.binary = binary
        self.mode = mode
        self.profiles = profiles
        self.logger = logger
    }

    /// How many times the browser was started again.
    package var restarts: Int { machine.restarts }

    /// Starts the browser, and again each time it ends, until the calling task is cancelled;
    /// then closes it.
    package func run() async {
        while !Task.isCancelled {
            var reason: String
            do {
                try await launch()
                reason = await watch()
            } catch {
                reason = "could not be started: \(error)"
            }
            await closeBrowser()
            if Task.isCancelled { break }
            let delay = machine.browserEnded(at: .now)
            logger.warning(
                "kiosk browser \(reason); starting it again in \(delay)",
                metadata: ["browserRestarts": "\(machine.restarts)"])
            try? await Task.sleep(for: delay)
        }
        await closeBrowser()
    }

    /// serve's `start {url}`: the page opens it now if the browser is up, else once it is.
    package func open(_ url: String) async {
        perform(machine.startReceived(url))
    }

    /// What the browser's page shows now, as composited on its surface (a playing video's frame
    /// included).
    package func screenshot() async throws(ScreenshotFailure) -> Screenshot {
        guard let page else { throw ScreenshotFailure(description: "the browser is not running") }
        let result: JSONValue
        do {
            result = try await page.devTools.send(
                "Page.captureScreenshot", ["format": "png", "fromSurface": true], timeout: .seconds(4))
        } catch {
            throw ScreenshotFailure(description: "\(error)")
        }
        guard let encoded = result["data"]?.stringValue, let png = Data(base64Encoded: encoded), let size = Self.pngSize(png) else {
            throw ScreenshotFailure(description: "Page.captureScreenshot gave no PNG")
        }
        return Screenshot(png: png, width: size.width, height: size.height)
    }

    /// The width and height in a PNG's header.
    package static func pngSize(_ png: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](png.prefix(24))
        guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    private func launch() async throws {
        // A fresh profile each launch; the previous ones go.
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        if let old = try? FileManager.default.contentsOfDirectory(atPath: profiles.path) {
            for name in old where name.hasPrefix("profile-") {
                try? FileManager.default.removeItem(at: profiles.appendingPathComponent(name))
            }
        }
        let chromium = try await HeadlessChromium.launch(
            binary: binary, mode: mode, profile: profiles.appendingPathComponent("profile-\(stamp)"))
        self.chromium = chromium
        let page = try await chromium.firstPage()
        try await page.devTools.send("Inspector.enable")
        self.page = page
        logger.info("kiosk browser started", metadata: ["pid": "\(chromium.processIdentifier)", "mode": "\(mode.name)"])
        perform(machine.browserStarted(at: .now))
    }

    /// Waits until the browser process ends, its page's DevTools socket closes or the page's
    /// renderer crashes (or the task is cancelled), and says which.
    private func watch() async -> String {
        guard let chromium, let page else { return "is gone" }
        while !Task.isCancelled {
            if !chromium.isRunning { return "exited" }
            if let event = await page.devTools.events.next(timeout: .milliseconds(250)) {
                if event["method"]?.stringValue == "Inspector.targetCrashed" { return "page crashed" }
                if event["method"]?.stringValue == "Inspector.detached" { return "page detached" }
            } else if await page.devTools.events.isDrained {
                return "DevTools socket closed"
            }
        }
        return "stopped"
    }

    private func perform(_ actions: [KioskBrowserMachine.Action]) {
        for action in actions {
            switch action {
            case .open(let url):
                guard let page else { continue }
                logger.info("kiosk browser opens \(url)")
                // Not awaited: a slow page must not hold the supervisor.
                Task { _ = try? await page.devTools.send("Page.navigate", ["url": .string(url)]) }
            }
        }
    }

    private func closeBrowser() async {
        if let page { await page.devTools.close() }
        page = nil
        if let chromium { await chromium.close() }
        chromium = nil
    }
}
