import Foundation
import StoryBridge
import Synchronization

/// A headless Chromium process driven over the DevTools protocol: the real browser path of the
/// end-to-end tests. Runs as root with `--no-sandbox`, in a throw-away profile.
package final class HeadlessChromium: Sendable {
    /// Why Chromium could not be used.
    enum LaunchError: Error, CustomStringConvertible {
        case notInstalled(searched: [String])
        case didNotStart(binary: String, detail: String)

        var description: String {
            switch self {
            case .notInstalled(let searched):
                return "no Chromium found (looked for \(searched.joined(separator: ", "))). "
                    + "Install it with 'apt-get install chromium', or pass the binary's path."
            case .didNotStart(let binary, let detail):
                return "\(binary) did not start its DevTools endpoint: \(detail)"
            }
        }
    }

    /// The binary names looked up on `PATH`, in order.
    static let candidateNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    package let binary: String
    let devToolsPort: Int
    /// The browser-wide DevTools path, `/devtools/browser/<id>`.
    let browserPath: String
    private let process: LaunchedProcess
    private let profile: URL

    private init(binary: String, devToolsPort: Int, browserPath: String, process: LaunchedProcess, profile: URL) {
        self.binary = binary
        self.devToolsPort = devToolsPort
        self.browserPath = browserPath
        self.process = process
        self.profile = profile
    }

    /// Finds a Chromium binary: `explicit`, then `$STORYBRIDGE_CHROMIUM`, then `PATH`.
    package static func locate(explicit: String? = nil) throws -> String {
        // A binary named explicitly is the only one tried: a typo must not silently pick another browser.
        if let explicit {
            guard FileManager.default.isExecutableFile(atPath: explicit) else { throw LaunchError.notInstalled(searched: [explicit]) }
            return explicit
        }
        var searched: [String] = []
        if let fromEnvironment = ProcessInfo.processInfo.environment["STORYBRIDGE_CHROMIUM"], !fromEnvironment.isEmpty {
            searched.append(fromEnvironment)
            if FileManager.default.isExecutableFile(atPath: fromEnvironment) { return fromEnvironment }
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in candidateNames {
            searched.append(name)
            for folder in path.split(separator: ":") {
                let file = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: file) { return file }
            }
        }
        throw LaunchError.notInstalled(searched: searched)
    }

    /// Starts Chromium headless and waits for its DevTools endpoint.
    package static func launch(
        binary explicit: String? = nil, extraArguments: [String] = [], timeout: Duration = .seconds(30)
    ) async throws
        -> HeadlessChromium
    {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-chromium-\(UUID().uuidString)")
        return try await launch(binary: explicit, mode: .headless(), profile: profile, extraArguments: extraArguments, timeout: timeout)
    }

    /// Starts Chromium in `mode` with the user data folder `profile` (made if missing, removed by
    /// ``close()``), opening `about:blank`, and waits for its DevTools endpoint.
    package static func launch(
        binary explicit: String? = nil, mode: ChromiumMode, profile: URL, extraArguments: [String] = [],
        timeout: Duration = .seconds(30)
    ) async throws -> HeadlessChromium {
        let binary = try locate(explicit: explicit)
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let arguments = mode.arguments(profile: profile) + extraArguments + ["about:blank"]
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            URL(fileURLWithPath: binary), arguments: arguments, environment: mode.environment(), output: .discard,
            error: .pipe(errors))
        LaunchedBrowsers.register(process.processIdentifier)
        let portFile = profile.appendingPathComponent("DevToolsActivePort")
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8) {
                let lines = text.split(separator: "\n")
                if lines.count >= 2, let port = Int(lines[0]) {
                    // Chromium writes to its standard error for as long as it runs: drain the pipe
                    // so that it never blocks on a full one.
                    Thread.detachNewThread { while !errors.fileHandleForReading.availableData.isEmpty {} }
                    return HeadlessChromium(
                        binary: binary, devToolsPort: port, browserPath: String(lines[1]), process: process,
                        profile: profile)
                }
            }
            if !process.isRunning {
                let detail = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
                throw LaunchError.didNotStart(binary: binary, detail: "exited with \(process.terminationStatus): \(detail)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        await process.exit(killingAfter: .seconds(5))
        LaunchedBrowsers.forget(process.processIdentifier)
        throw LaunchError.didNotStart(binary: binary, detail: "no DevToolsActivePort after \(timeout)")
    }

    /// The browser process's id.
    package var processIdentifier: Int32 { process.processIdentifier }

    /// Whether the browser process still runs.
    package var isRunning: Bool { process.isRunning }

    /// The tab Chromium opened at its start (its first page target), for a browser whose one
    /// window must show what is driven (a kiosk).
    func firstPage() async throws -> BrowserPage {
        let browser = try await DevToolsConnection.connect(url: "ws://127.0.0.1:\(devToolsPort)\(browserPath)")
        let targets = try await browser.send("Target.getTargets")
        await browser.close()
        guard case .array(let infos) = targets["targetInfos"] ?? .null,
            let targetId = infos.first(where: { $0["type"]?.stringValue == "page" })?["targetId"]?.stringValue
        else {
            return try await newPage()
        }
        let page = try await DevToolsConnection.connect(url: "ws://127.0.0.1:\(devToolsPort)/devtools/page/\(targetId)")
        try await page.send("Page.enable")
        try await page.send("Runtime.enable")
        return BrowserPage(devTools: page)
    }

    /// Opens a new tab in the browser's window.
    package func newPage() async throws -> BrowserPage {
        try await newPage(inNewWindow: false)
    }

    /// Opens a new tab; with `inNewWindow`, in a window of its own.
    ///
    /// Headless Chromium renders only the tab in front of each window: a second tab of the same
    /// window runs no animation frames and takes no screenshots. Pages that must work at the same
    /// time (such as the two of the `shots` pipeline) each need their own window.
    package func newPage(inNewWindow: Bool) async throws -> BrowserPage {
        let browser = try await DevToolsConnection.connect(url: "ws://127.0.0.1:\(devToolsPort)\(browserPath)")
        let created = try await browser.send(
            "Target.createTarget", ["url": "about:blank", "newWindow": .bool(inNewWindow)])
        await browser.close()
        guard let targetId = created["targetId"]?.stringValue else {
            throw LaunchError.didNotStart(binary: binary, detail: "Target.createTarget gave no targetId")
        }
        let page = try await DevToolsConnection.connect(url: "ws://127.0.0.1:\(devToolsPort)/devtools/page/\(targetId)")
        try await page.send("Page.enable")
        try await page.send("Runtime.enable")
        return BrowserPage(devTools: page)
    }

    /// Ends the browser (SIGTERM; SIGKILL if it still runs 10 s later), awaits its exit without
    /// holding a thread, ends the helper processes it leaves in its process group, and removes
    /// its profile. The helpers go first: one that outlived the browser (a busy machine gives them
    /// time) wrote into the profile while it was removed, and left it behind. Not cut short by
    /// the caller's cancellation (a kiosk closes its browser as it is cancelled).
    package func close() async {
        let (process, profile) = (self.process, self.profile)
        await Task.detached {
            if process.isRunning { process.terminate() }
            await process.exit(killingAfter: .seconds(10))
            LaunchedBrowsers.forget(process.processIdentifier)
            await process.endGroup()
            try? FileManager.default.removeItem(at: profile)
        }.value
    }

    /// Runs `body` with this browser, then closes it, whether `body` returned or threw (what a
    /// `defer` would do, which cannot await).
    package func closingAfter<Result>(_ body: (HeadlessChromium) async throws -> Result) async rethrows -> Result {
        let result: Result
        do {
            result = try await body(self)
        } catch {
            await close()
            throw error
        }
        await close()
        return result
    }
}

/// Browsers still running when the test process exits are terminated, so a forgotten `close()`
/// (or a shared browser that lives as long as the process) leaves no Chromium behind.
enum LaunchedBrowsers {
    private static let running = Mutex<Set<pid_t>>([])
    private static let exitHook: Void = {
        atexit {
            for pid in LaunchedBrowsers.running.withLock({ $0 }) { kill(pid, SIGTERM) }
        }
    }()

    static func register(_ pid: pid_t) {
        _ = exitHook
        running.withLock { _ = $0.insert(pid) }
    }

    static func forget(_ pid: pid_t) {
        running.withLock { _ = $0.remove(pid) }
    }
}
