import Foundation

/// Where the host reads time: the wall-clock date stamped on records, a monotonic instant for
/// measuring and deadlines, and sleeping for back-off and polling.
///
/// The host uses ``SystemHostClock`` unless it is given another; tests give a manual clock
/// (`ManualHostClock` in StoryBridgeTesting) and move time forward themselves instead of sleeping.
public protocol HostClock: Sendable {
    /// The current date, as analytics records and the upload queue store it.
    var now: Date { get }
    /// A monotonic reading for measuring elapsed time and scheduling deadlines.
    var instant: ContinuousClock.Instant { get }
    /// Suspends for `duration` of this clock's time. Throws `CancellationError` when the calling
    /// task is cancelled first.
    func sleep(for duration: Duration) async throws
    /// Suspends until this clock's ``now`` reaches `deadline` (returns at once when it has).
    /// Unlike a duration worked out from ``now`` beforehand, the deadline stays right however much
    /// the clock moves before the sleep begins.
    func sleep(until deadline: Date) async throws
}

extension HostClock {
    /// The deadline's distance from ``now``, slept with ``sleep(for:)``: right for a clock that
    /// moves by itself, as the system's does.
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSince(now)
        guard seconds > 0 else { return }
        try await sleep(for: .nanoseconds(Int64((seconds * 1e9).rounded(.up))))
    }
}

/// The real clock: the system's date, `ContinuousClock` and `Task.sleep`.
public struct SystemHostClock: HostClock {
    /// The system clock.
    public init() {}

    /// The system's date.
    public var now: Date { Date() }

    /// `ContinuousClock.now`.
    public var instant: ContinuousClock.Instant { ContinuousClock.now }

    /// `Task.sleep(for:)`: throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
