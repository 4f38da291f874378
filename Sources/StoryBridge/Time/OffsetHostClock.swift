import Foundation

/// The system clock moved by a fixed offset: its date starts at a chosen moment and then runs as
/// the system's does. `serve --test-start-time` uses it so that a test with a real process can
/// start two seconds before a schedule's window edge (docs/design/FLEET.md §10.3); elapsed time,
/// deadlines and sleeps are the system's.
public struct OffsetHostClock: HostClock {
    /// Seconds added to the system's date.
    public let offset: TimeInterval

    /// A clock whose date is `start` now.
    public init(startingAt start: Date) {
        offset = start.timeIntervalSinceNow
    }

    /// The system's date plus ``offset``.
    public var now: Date { Date().addingTimeInterval(offset) }

    /// `ContinuousClock.now`.
    public var instant: ContinuousClock.Instant { ContinuousClock.now }

    /// `Task.sleep(for:)`: throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
