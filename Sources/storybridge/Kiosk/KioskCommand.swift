import ArgumentParser
import Dispatch
import Foundation
import Logging
import StoryBridge
import StoryBridgeScripts

/// `storybridge kiosk` (docs/design/FLEET.md §9): the kiosk's browser, run beside `serve` on the
/// same machine as the same user.
struct KioskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Run the kiosk's browser: Chromium full screen on this machine's display, showing the local serve.",
        discussion: """
            Runs beside 'storybridge serve' on the same machine, as the same user, with the same --data-dir. It \
            finds serve by <data-dir>/run/serve.json (written by serve once it listens; it waits and tries again \
            every second while there is none), attaches to serve's control socket and opens the page serve names \
            (serve's start page, which leads to what the schedule plays).

            Chromium runs in kiosk mode on the X display of --display or $DISPLAY, with a fresh profile in \
            <data-dir>/kiosk each start, and is started again if it exits, crashes or its page dies: after 1 s, \
            doubling to 30 s, back to 1 s once it has run 5 minutes. Restarts are counted in serve's fleet beat. \
            With --headless there is no window (machines without a display, tests). From the fleet dashboard, \
            'screenshot' asks this browser for what it shows.

            With --idle-reset, a screen someone touched and then left alone that long goes back to the start \
            page: serve ends the viewer's session at once (saved and queued for upload with endedBy=idle) and a \
            fresh tab begins a new viewer and session. A screen nobody touched since the last reset is left alone.

            SIGTERM or Ctrl-C closes Chromium and exits 0.
            """)

    @OptionGroup var library: LibraryOptions

    @Option(help: "The Chromium binary (default: $STORYBRIDGE_CHROMIUM, else chromium, chromium-browser, google-chrome on PATH).")
    var browser: String?

    @Option(help: "The X display for the kiosk window, such as :0 (default: $DISPLAY).")
    var display: String?

    @Flag(help: "No window: run Chromium headless.")
    var headless = false

    @Option(
        help: ArgumentHelp(
            "Return to the start page after this long without input (0, the default, is off; 90s, 2m, or seconds).",
            valueName: "time"))
    var idleReset: TimeLimit = .after(.zero)

    @Option(help: ArgumentHelp("The window's size in pixels.", valueName: "WIDTHxHEIGHT"))
    var windowSize = "1920x1080"

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    /// The window size, once validated.
    private var size: ChromiumMode.WindowSize {
        get throws {
            guard let size = ChromiumMode.WindowSize(parsing: windowSize) else {
                throw ValidationError("--window-size '\(windowSize)' is not WIDTHxHEIGHT with both from 100 to 16384 (such as 1920x1080)")
            }
            return size
        }
    }

    /// The browser's mode: headless, or kiosk on the display of `--display` or `environment`.
    func mode(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ChromiumMode {
        let size = try size
        if headless { return .headless(windowSize: size, devToolsOrigin: ChromiumMode.ownOrigin) }
        guard let display = display ?? environment["DISPLAY"], !display.isEmpty else {
            throw ValidationError("no X display: give --display, set DISPLAY, or --headless")
        }
        return .kiosk(display: display, windowSize: size)
    }

    /// Seconds of `--idle-reset`.
    var idleResetSeconds: Int {
        get throws {
            guard case .after(let duration) = idleReset else {
                throw ValidationError("--idle-reset takes a length of time; 0 turns it off")
            }
            return Int(duration.components.seconds)
        }
    }

    func validate() throws {
        _ = try mode()
        _ = try idleResetSeconds
    }

    func run() async throws {
        let mode = try mode()
        let binary: String
        do {
            binary = try HeadlessChromium.locate(explicit: browser)
        } catch {
            throw CommandFailure("\(error)", status: CommandFailure.unreachable)
        }
        if case .kiosk = mode, getuid() == 0 {
            Terminal.warn("warning: running as root: Chromium's sandbox is off (--no-sandbox); run the kiosk as a user of its own")
        }
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: .text, level: logLevel) }
        var logger = Logger(label: "storybridge.kiosk")
        logger.logLevel = logLevel
        let directory = library.directory
        let idleSeconds = try idleResetSeconds
        let idleReporter = KioskIdleReporter()
        let kioskBrowser = KioskBrowser(
            binary: binary, mode: mode, profiles: directory.root.appendingPathComponent("kiosk"), idleAfter: .seconds(idleSeconds),
            reportIdle: { viewer in await idleReporter.report(viewer: viewer) }, logger: logger)
        let attach = KioskControlMessage.Attach(
            pid: getpid(), mode: mode.name, display: mode.display, idleResetSeconds: idleSeconds, browser: binary)
        let client = KioskControlClient(
            directory: directory, attach: attach, browser: kioskBrowser, idleReporter: idleReporter, logger: logger)
        logger.info("storybridge kiosk: \(mode.name) browser \(binary), data folder \(directory.root.path)")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await kioskBrowser.run() }
            group.addTask { await client.run() }
            await KioskSignals.first(of: [SIGTERM, SIGINT])
            logger.info("storybridge kiosk: stopping")
            group.cancelAll()
        }
    }
}

/// The termination signals `storybridge kiosk` ends on.
enum KioskSignals {
    /// Returns when the process receives one of `signals` (which no longer end it by themselves).
    static func first(of signals: [Int32]) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            sources.append(source)
        }
        for await _ in stream { break }
        for source in sources { source.cancel() }
    }
}
