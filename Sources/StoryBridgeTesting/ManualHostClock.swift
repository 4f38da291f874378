import Foundation
import StoryBridge
import Synchronization

/// A clock that stands still until the test moves it with ``advance(by:)``: sleepers whose time has
/// come are woken then, in the order of their wake-up times.
public final class ManualHostClock: HostClock {
    private struct Sleeper {
        let wakeAt: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed: Duration = .zero
        var sleepers: [UUID: Sleeper] = [:]
    }

    private let start: Date
    private let startInstant: ContinuousClock.Instant
    private let state = Mutex(State())

    /// A clock that reads `start` until it is advanced.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.start = start
        self.startInstant = ContinuousClock.now
    }

    /// The clock's date: the start date plus the time advanced.
    public var now: Date {
        let elapsed = state.withLock { $0.elapsed }
        return start.addingTimeInterval(Self.seconds(elapsed))
    }

    /// The clock's monotonic instant, which moves with ``advance(by:)`` only.
    public var instant: ContinuousClock.Instant {
        startInstant.advanced(by: state.withLock { $0.elapsed })
    }

    /// How many tasks are sleeping on this clock now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps until ``advance(by:)`` reaches the wake-up time; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(wakingAt: { $0 + duration })
    }

    /// Sleeps until ``now`` reaches `deadline`, however far the clock moves before the sleep is
    /// registered (a deadline already passed returns at once).
    public func sleep(until deadline: Date) async throws {
        let offset = Duration.nanoseconds(Int64((deadline.timeIntervalSince(start) * 1e9).rounded(.up)))
        try await sleep(wakingAt: { _ in offset })
    }

    /// Registers a sleeper waking at `wakeAt(elapsed)`, worked out under the lock.
    private func sleep(wakingAt wakeAt: @escaping @Sendable (Duration) -> Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock: a task cancelled before it got here has already run the
                // cancellation handler below, which found no sleeper to wake; one cancelled later
                // finds it registered.
                let resumeNow = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let wake = wakeAt(state.elapsed)
                    if wake <= state.elapsed { return .success(()) }
                    state.sleepers[id] = Sleeper(wakeAt: wake, continuation: continuation)
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper whose time has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.elapsed += duration
            let due = state.sleepers.filter { $0.value.wakeAt <= state.elapsed }
            for key in due.keys { state.sleepers.removeValue(forKey: key) }
            return due.values.sorted { $0.wakeAt < $1.wakeAt }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, up to `timeout`) until at least `count` tasks sleep on this clock: a test
    /// calls it before ``advance(by:)`` so the sleep it means to end has begun.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while sleepers < count {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
