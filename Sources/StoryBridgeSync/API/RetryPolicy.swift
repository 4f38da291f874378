import Foundation

/// How often and how long to wait before asking again after a 5xx, a 429 or a dropped connection:
/// exponential back-off with full jitter, capped, and a server's `Retry-After` honoured (up to the cap).
package struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first one included.
    package var maxAttempts: Int
    /// The first back-off's upper bound.
    package var baseDelay: Duration
    /// No wait is longer than this.
    package var maxDelay: Duration

    package init(maxAttempts: Int = 6, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(30)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1), given the server's
    /// `Retry-After` value if it sent one.
    package func delay(afterAttempt attempt: Int, retryAfter: String? = nil, now: Date = Date()) -> Duration {
        if let retryAfter, let asked = Self.parseRetryAfter(retryAfter, now: now) {
            return min(asked, maxDelay)
        }
        let exponent = min(max(attempt - 1, 0), 20)
        let ceiling = min(baseDelay * (1 << exponent), maxDelay)
        let milliseconds = max(1, Int(ceiling.components.seconds * 1000 + ceiling.components.attoseconds / 1_000_000_000_000_000))
        return .milliseconds(Int.random(in: milliseconds / 2...milliseconds))
    }

    /// `Retry-After` as delta-seconds or an HTTP date.
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
    }

    /// Whether an HTTP status is worth asking again.
    static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 502 || status == 503 || status == 504 || status == 500
    }
}
