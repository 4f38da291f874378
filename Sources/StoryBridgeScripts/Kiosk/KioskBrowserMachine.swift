/// The decisions of `storybridge kiosk`'s browser supervisor (docs/design/FLEET.md §9.2) as a
/// plain value: events in, actions out. A browser that ends is started again after a delay of
/// 1 s, doubling to 30 s; a browser that ran 5 minutes has earned the first delay again. The
/// start URL serve sends is opened in each browser once it is up.
package struct KioskBrowserMachine: Sendable, Equatable {
    /// What the supervisor does.
    package enum Action: Sendable, Equatable {
        /// Open `url` in the browser's page.
        case open(String)
    }

    /// The delay before the first restart.
    package static let firstDelay = Duration.seconds(1)
    /// The longest delay.
    static let longestDelay = Duration.seconds(30)
    /// How long a browser must run for the delay to start again at ``firstDelay``.
    static let stableAfter = Duration.seconds(300)

    /// The URL serve told the kiosk to open, once it has.
    package private(set) var startURL: String?
    /// How many times the browser was started again.
    package private(set) var restarts = 0
    /// Whether a browser is up.
    package private(set) var isUp = false
    private var delay = firstDelay
    private var upSince: ContinuousClock.Instant?

    /// A supervisor that has started no browser yet.
    package init() {}

    /// A browser is up at `now`: it opens the start URL, when serve has sent one.
    package mutating func browserStarted(at now: ContinuousClock.Instant) -> [Action] {
        isUp = true
        upSince = now
        return startURL.map { [.open($0)] } ?? []
    }

    /// The browser ended (or could not be started) at `now`: how long to wait before starting
    /// the next one.
    package mutating func browserEnded(at now: ContinuousClock.Instant) -> Duration {
        if let upSince, now - upSince >= Self.stableAfter { delay = Self.firstDelay }
        isUp = false
        upSince = nil
        restarts += 1
        let wait = delay
        delay = min(delay * 2, Self.longestDelay)
        return wait
    }

    /// serve sent `start {url}`: a browser that is up opens it; the next one will.
    package mutating func startReceived(_ url: String) -> [Action] {
        startURL = url
        return isUp ? [.open(url)] : []
    }
}
