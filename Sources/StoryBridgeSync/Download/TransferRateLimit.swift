import Foundation
import Synchronization

/// A download speed limit (`--limit-rate`): bytes per second, written like curl's — a number with
/// an optional `K`, `M` or `G` suffix in binary units (`2M` is 2,097,152 bytes a second).
package struct TransferRate: Sendable, Hashable, CustomStringConvertible {
    package let bytesPerSecond: Int64

    package init(bytesPerSecond: Int64) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// Parses `500K`, `2M`, `1.5M`, `1G` or a plain byte count; nil for anything else or for less
    /// than 1 KB a second (a limit that low would stall every connection into its read timeout).
    package init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        let multiplier: Double
        let number: Substring
        switch last.uppercased() {
        case "K": (multiplier, number) = (1024, trimmed.dropLast())
        case "M": (multiplier, number) = (1024 * 1024, trimmed.dropLast())
        case "G": (multiplier, number) = (1024 * 1024 * 1024, trimmed.dropLast())
        default: (multiplier, number) = (1, Substring(trimmed))
        }
        guard let value = Double(number), value.isFinite else { return nil }
        let bytes = value * multiplier
        guard bytes >= 1024, bytes < 1e15 else { return nil }
        bytesPerSecond = Int64(bytes)
    }

    package var description: String {
        if bytesPerSecond % (1024 * 1024) == 0 { return "\(bytesPerSecond / (1024 * 1024))M" }
        if bytesPerSecond % 1024 == 0 { return "\(bytesPerSecond / 1024)K" }
        return "\(bytesPerSecond)"
    }
}

/// One token bucket shared by every download of a sync run, so `--limit-rate` bounds the run's
/// total, however many packages download at once. Each received chunk is paid for after it is
/// written; a reader that is ahead of the rate sleeps, and while it sleeps it reads nothing, so
/// TCP flow control slows the sender too. Over any interval the bytes let through are at most
/// `rate × interval + burst`, and a steady reader gets the rate within the burst.
package final class TransferRateLimiter: Sendable {
    package let rate: TransferRate
    /// Bytes that may pass at once after an idle spell (a quarter second at the rate, at least 16 KB).
    package let burst: Int64
    /// When the bytes paid for so far would have passed at exactly the rate.
    private let paidUntil = Mutex<ContinuousClock.Instant?>(nil)

    package init(rate: TransferRate) {
        self.rate = rate
        burst = max(16 * 1024, rate.bytesPerSecond / 4)
    }

    /// Pays for `bytes` just received: returns at once while within the burst, else after the
    /// delay that keeps the total at the rate. Throws `CancellationError` when the task is cancelled.
    package func pay(_ bytes: Int) async throws {
        guard bytes > 0 else { return }
        let now = ContinuousClock.now
        let burstTime = duration(of: burst)
        // The account starts at most one burst in the past: an idle reader banks one burst, no more.
        let due = paidUntil.withLock { paid -> ContinuousClock.Instant in
            let start = max(paid ?? now - burstTime, now - burstTime)
            paid = start + duration(of: Int64(bytes))
            return paid!
        }
        if due > now { try await Task.sleep(until: due, clock: .continuous) }
    }

    private func duration(of bytes: Int64) -> Duration {
        .nanoseconds(Int64((Double(bytes) / Double(rate.bytesPerSecond) * 1e9).rounded()))
    }
}
