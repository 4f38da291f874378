import Foundation

/// What becomes of a webhook delivery after an attempt (docs/design/FLEET.md §8.4), as a plain
/// function: a 2xx answer is delivered; no answer (connection error, timeout), 408, 429 and 5xx
/// are tried again after 10 s, 1 min, 5 min, 15 min, 1 h, 2 h, 4 h (each ×0.8–1.2), so 8 attempts
/// in all; any other answer fails at once. A `Retry-After` in seconds replaces the wait when it is
/// longer, up to 4 h.
package enum WebhookRetryPolicy {
    /// The verdict on one attempt.
    package enum Verdict: Sendable, Equatable {
        /// A 2xx answer.
        case delivered
        /// Try again this many seconds after the attempt began.
        case retry(after: TimeInterval)
        /// Given up: an answer not worth repeating, or the last attempt.
        case failed
    }

    /// The waits after attempts 1 to 7, in seconds.
    package static let waits: [TimeInterval] = [10, 60, 300, 900, 3600, 7200, 14_400]
    /// Attempts in all.
    static var maximumAttempts: Int { waits.count + 1 }
    /// The longest `Retry-After` obeyed, in seconds.
    package static let longestRetryAfter: TimeInterval = 14_400

    /// The verdict on attempt number `attempts` (from 1) that got `status` (nil: no answer) with
    /// `retryAfter` seconds, the wait scaled by `jitter` (0.8…1.2).
    package static func verdict(status: Int?, attempts: Int, retryAfter: Int?, jitter: Double) -> Verdict {
        if let status, (200..<300).contains(status) { return .delivered }
        if let status, !(status == 408 || status == 429 || (500..<600).contains(status)) { return .failed }
        guard attempts < maximumAttempts else { return .failed }
        let wait = waits[max(0, attempts - 1)] * jitter
        let asked = retryAfter.map { min(TimeInterval(max(0, $0)), longestRetryAfter) } ?? 0
        return .retry(after: max(wait, asked))
    }
}
