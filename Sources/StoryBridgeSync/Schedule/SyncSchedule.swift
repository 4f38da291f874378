import Foundation

/// When serve's built-in sync runs (`--sync-every`): every `interval`, each wait moved by a random
/// jitter of up to a tenth of the interval either way (capped at five minutes), so a fleet of
/// kiosks started together does not ask the service at the same second. The first run comes
/// after a jitter alone, so a restarted kiosk is current soon.
package struct SyncSchedule: Sendable, Hashable {
    package let interval: Duration
    /// The most a wait is moved either way.
    package let jitter: Duration

    package init(interval: Duration) {
        self.interval = interval
        jitter = min(interval / 10, .seconds(300))
    }

    /// The wait before the first run: somewhere in `0...jitter`.
    package func firstDelay<Source: RandomNumberGenerator>(using random: inout Source) -> Duration {
        jitter * Double.random(in: 0...1, using: &random)
    }

    /// The wait between two runs: `interval ± jitter`.
    package func nextDelay<Source: RandomNumberGenerator>(using random: inout Source) -> Duration {
        interval + jitter * Double.random(in: -1...1, using: &random)
    }
}
