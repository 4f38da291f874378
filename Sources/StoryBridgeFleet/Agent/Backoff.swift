/// The agent's waits between connection attempts (docs/design/FLEET.md §3.2): 1 s, 2, 4, 8, 16,
/// 32, 60 s, then 60 s, each multiplied by a random factor in 0.8…1.2; back to 1 s once a
/// connection has lasted 60 s. A `Retry-After` of a 503 answer is obeyed, up to 5 minutes.
package struct Backoff: Sendable, Equatable {
    /// The waits before jitter, in seconds.
    package static let steps: [Int] = [1, 2, 4, 8, 16, 32, 60]
    /// How long a connection must last for the next failure to start again at 1 s.
    static let resetAfter: Duration = .seconds(60)
    /// The longest `Retry-After` obeyed.
    static let longestRetryAfter: Duration = .seconds(300)

    /// Failed attempts since the last reset.
    package private(set) var failures = 0

    /// A back-off at its start.
    package init() {}

    /// The wait after one more failure, with `jitter` (a factor the caller draws in 0.8…1.2) and the
    /// server's `Retry-After`, if any.
    package mutating func next(jitter: Double, retryAfter: Duration? = nil) -> Duration {
        let step = Self.steps[min(failures, Self.steps.count - 1)]
        failures += 1
        let jittered = Duration.milliseconds(Int((Double(step) * 1000 * min(max(jitter, 0.8), 1.2)).rounded()))
        if let retryAfter { return min(max(retryAfter, jittered), Self.longestRetryAfter) }
        return jittered
    }

    /// A connection lasted `lasted`: from 60 s on, the next failure waits 1 s again.
    package mutating func connectionEnded(after lasted: Duration) {
        if lasted >= Self.resetAfter { failures = 0 }
    }
}
