import Foundation
import Logging
import StoryBridge

/// `storybridge kiosk`'s browser (docs/design/FLEET.md §9.2): launches Chromium in its mode with
/// a fresh profile, opens the start URL serve sends, and watches the process, the page's
/// DevTools socket and `Inspector.targetCrashed`; whichever ends it, the browser is started again
/// after ``KioskBrowserMachine``'s delay. ``run()`` supervises until its task is cancelled, then
/// closes Chromium.
///
/// Each page reports input through ``InputWatch``; with an idle time, a screen touched and then
/// left alone that long is reset (§9.4, ``IdleResetMachine``): the page's viewer id goes to
/// serve through the `reportIdle` closure (which ends that viewer's session), then a fresh tab
/// opens the start URL and the old one is closed, so the new page has an empty
/// `sessionStorage` and a new viewer and session begin.
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
    private let reportIdle: @Sendable (String) async -> Bool
    private var machine = KioskBrowserMachine()
    private var idle: IdleResetMachine
    private var chromium: HeadlessChromium?
    private var page: BrowserPage?

    /// A supervisor of `binary` in `mode`, keeping each launch's profile in `profiles`. After
    /// `idleAfter` without input (zero: never) the screen is reset; `reportIdle` is given the
    /// viewer id of the page being left and returns whether serve confirmed the end of its
    /// session (it is expected to give up by itself after a short wait).
    package init(
        binary: String, mode: ChromiumMode, profiles: URL, idleAfter: Duration = .zero,
        reportIdle: @escaping @Sendable (String) async -> Bool = { _ in false }, logger: Logger
    ) {
        self.binary = binary
        self.mode = mode
        self.profiles = profiles
        self.idle = IdleResetMachine(idleAfter: idleAfter)
        self.reportIdle = reportIdle
        self.logger = logger
    }

    /// How many times the browser was started again.
    package var restarts: Int { machine.restarts }

    /// How many idle resets there were.
    package var idleResets: Int { idle.resets }

    /// Whole seconds since someone last touched the screen; nil when nobody has since the kiosk
    /// started.
    package var lastInputSecondsAgo: Int? { idle.lastInputSecondsAgo(at: .now) }

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
        try await InputWatch.install(on: page)
        self.page = page
        idle.browserStarted()
        logger.info("kiosk browser started", metadata: ["pid": "\(chromium.processIdentifier)", "mode": "\(mode.name)"])
        perform(machine.browserStarted(at: .now))
    }

    /// Waits until the browser process ends, its page's DevTools socket closes or the page's
    /// renderer crashes (or the task is cancelled), and says which. Meanwhile it notes the page's
    /// input and resets the screen when it has been idle long enough. The page is read again at
    /// each turn: an idle reset replaces it.
    private func watch() async -> String {
        while !Task.isCancelled {
            guard let chromium, let page else { return "is gone" }
            if !chromium.isRunning { return "exited" }
            if let event = await page.devTools.events.next(timeout: .milliseconds(250)) {
                if InputWatch.isInput(event) { idle.inputSeen(at: .now) }
                if event["method"]?.stringValue == "Inspector.targetCrashed" { return "page crashed" }
                if event["method"]?.stringValue == "Inspector.detached" { return "page detached" }
            } else if await page.devTools.events.isDrained {
                return "DevTools socket closed"
            }
            if idle.tick(at: .now) { await resetIdleScreen() }
        }
        return "stopped"
    }

    /// The idle reset (§9.4): reads the page's viewer id, has serve end its session, opens a
    /// fresh tab on the start URL and closes the old one. The fresh tab opens before the old
    /// closes: a kiosk window whose last tab closes would end the browser.
    private func resetIdleScreen() async {
        defer { idle.resetFinished() }
        guard let chromium, let old = page else { return }
        let viewer = try? await old.evaluate("(window.__storybridge && window.__storybridge.viewerId) || null").stringValue
        logger.info(
            "kiosk idle for \(idle.idleAfter): back to the start page with a fresh viewer",
            metadata: ["viewer": "\(viewer ?? "none")", "idleResets": "\(idle.resets + 1)"])
        if let viewer, await !reportIdle(viewer) {
            logger.warning("kiosk idle reset: serve did not confirm the end of the session in time; going on")
        }
        let fresh: BrowserPage
        do {
            fresh = try await chromium.newPage()
            try await fresh.devTools.send("Inspector.enable")
            try await InputWatch.install(on: fresh)
        } catch {
            logger.warning("kiosk idle reset: no fresh tab could be opened (\(error)); the old one stays")
            return
        }
        page = fresh
        if let url = machine.startURL { perform([.open(url)]) }
        await old.close()
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
