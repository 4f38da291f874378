import Foundation

/// How Chromium is started (docs/design/FLEET.md §9.2): what every launch shares, and what a
/// kiosk window on a display or a headless browser adds.
package enum ChromiumMode: Sendable, Equatable {
    /// No window: the tests' browser, and `storybridge kiosk --headless` on a machine without a
    /// display. DevTools accepts connections with `Origin` `devToolsOrigin` (`*`: any; the
    /// kiosk gives ``ownOrigin``).
    case headless(windowSize: WindowSize = WindowSize(width: 1280, height: 900), devToolsOrigin: String = "*")

    /// The `Origin` storybridge's own DevTools client sends: the only one a kiosk's browser
    /// accepts, so that a page it shows cannot drive it.
    package static let ownOrigin = "ws://127.0.0.1"
    /// A full-screen kiosk window on X display `display`.
    case kiosk(display: String, windowSize: WindowSize)

    /// A window's size in pixels.
    package struct WindowSize: Sendable, Equatable, CustomStringConvertible {
        /// Width in pixels.
        package var width: Int
        /// Height in pixels.
        package var height: Int

        /// A size of `width`×`height`.
        package init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        /// Reads `1920x1080`; nil for anything else (both at least 100, at most 16384).
        package init?(parsing text: String) {
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (100...16384).contains(width),
                (100...16384).contains(height)
            else { return nil }
            self.init(width: width, height: height)
        }

        package var description: String { "\(width)x\(height)" }
    }

    /// What both modes share: DevTools on loopback at a port Chromium picks (written to
    /// `DevToolsActivePort` in the profile), and a browser that asks nothing and plays video
    /// without a click.
    package static let sharedArguments = [
        "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--no-first-run", "--no-default-browser-check",
        "--disable-extensions", "--autoplay-policy=no-user-gesture-required",
    ]

    /// `kiosk` or `headless`, as the control socket's `attach` says it.
    package var name: String {
        switch self {
        case .headless: "headless"
        case .kiosk: "kiosk"
        }
    }

    /// The display of a kiosk window.
    package var display: String? {
        if case .kiosk(let display, _) = self { return display }
        return nil
    }

    /// The arguments for a launch with `profile` as its user data folder; `asRoot` adds
    /// `--no-sandbox` (Chromium refuses to start as root with its sandbox).
    package func arguments(profile: URL, asRoot: Bool = getuid() == 0) -> [String] {
        var arguments = Self.sharedArguments
        switch self {
        case .headless(let size, let origin):
            // Today's list of the tests' browser.
            arguments += [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--mute-audio", "--remote-allow-origins=\(origin)", "--window-size=\(size.width),\(size.height)",
            ]
        case .kiosk(_, let size):
            // GPU left on. DevTools accepts only the origin storybridge's own client sends, so a
            // page in the kiosk cannot drive its own browser.
            arguments += [
                "--kiosk", "--noerrdialogs", "--disable-infobars", "--disable-session-crashed-bubble", "--disable-translate",
                "--check-for-update-interval=31536000", "--window-size=\(size.width),\(size.height)", "--window-position=0,0",
                "--remote-allow-origins=\(Self.ownOrigin)",
            ]
            if asRoot { arguments.append("--no-sandbox") }
        }
        return arguments + ["--user-data-dir=\(profile.path)"]
    }

    /// The environment of a launch: this process's, with `DISPLAY` set for a kiosk window.
    package func environment(from base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        if case .kiosk(let display, _) = self { environment["DISPLAY"] = display }
        return environment
    }
}
