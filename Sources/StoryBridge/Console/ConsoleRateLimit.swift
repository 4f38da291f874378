/// How many console lines one page may send: a steady rate and a burst above it. The host holds
/// each page to it, and the client (which gets the same numbers in its script tag) holds the page
/// to it before anything reaches the socket.
public struct ConsoleRateLimit: Sendable, Equatable {
    /// Lines a second, sustained.
    package var linesPerSecond: Int
    /// Lines that may come at once, after a quiet spell.
    package var burst: Int

    /// 20 lines a second, bursts of 50: a deck's start-up chatter passes, a loop of `console.log`
    /// is cut after a moment.
    public static let standard = ConsoleRateLimit(linesPerSecond: 20, burst: 50)

    /// A limit of `linesPerSecond` (at least 1) with bursts of `burst` (at least 1).
    package init(linesPerSecond: Int, burst: Int) {
        self.linesPerSecond = max(1, linesPerSecond)
        self.burst = max(1, burst)
    }
}

/// A token bucket: it holds up to `burst` tokens, gains `linesPerSecond` of them a second, and
/// each line passed takes one. Reads no clock: the caller gives the instant.
struct ConsoleTokenBucket: Sendable {
    let limit: ConsoleRateLimit
    private var tokens: Double
    private var refilled: ContinuousClock.Instant

    /// A full bucket at `instant`.
    init(limit: ConsoleRateLimit, at instant: ContinuousClock.Instant) {
        self.limit = limit
        tokens = Double(limit.burst)
        refilled = instant
    }

    /// Takes a token when there is one at `instant`; `false` when the line is over the limit.
    mutating func take(at instant: ContinuousClock.Instant) -> Bool {
        if instant > refilled {
            let elapsed = (instant - refilled).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            tokens = min(Double(limit.burst), tokens + seconds * Double(limit.linesPerSecond))
            refilled = instant
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
