import NIOCore
import NIOPosix
import Synchronization

/// Fires the deadlines of every request of a bridge.
///
/// On the system clock a deadline is a task scheduled on one of NIO's event loops
/// (`EventLoop.scheduleTask`, cancelled with `Scheduled.cancel()`): no task of Swift's pool and no
/// ticking. On another ``HostClock`` (a test's manual clock) a deadline is a task that sleeps on
/// that clock until the deadline, so the test fires it by moving time forward.
final class DeadlineTimer: Sendable {
    /// A deadline not yet fired or cancelled, as it was scheduled.
    private enum Pending {
        case onEventLoop(Scheduled<Void>)
        case sleeping(Task<Void, Never>)

        func cancel() {
            switch self {
            case .onEventLoop(let scheduled): scheduled.cancel()
            case .sleeping(let task): task.cancel()
            }
        }
    }

    private let pending = Mutex<(nextId: UInt64, byId: [UInt64: Pending])>((0, [:]))
    private let clock: any HostClock
    /// The event loop of the system clock's deadlines; `nil` with any other clock.
    private let loop: (any EventLoop)?

    init(clock: any HostClock) {
        self.clock = clock
        loop = clock is SystemHostClock ? MultiThreadedEventLoopGroup.singleton.next() : nil
    }

    /// Calls `fire` once `deadline` has passed, unless cancelled first. Returns the id to cancel with.
    func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let delay = clock.instant.duration(to: deadline)
        // Registered under the lock before it can fire: whoever removes the entry fires or cancels.
        return pending.withLock { pending in
            pending.nextId += 1
            let id = pending.nextId
            let fireOnce: @Sendable () -> Void = { [self] in
                if self.pending.withLock({ $0.byId.removeValue(forKey: id) }) != nil { fire() }
            }
            if let loop {
                let (seconds, attoseconds) = delay.components
                let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
                pending.byId[id] = .onEventLoop(loop.scheduleTask(in: .nanoseconds(nanoseconds), fireOnce))
            } else {
                pending.byId[id] = .sleeping(
                    Task { [clock] in
                        do { try await clock.sleep(for: delay) } catch { return }
                        fireOnce()
                    })
            }
            return id
        }
    }

    /// Forgets a deadline that is no longer needed.
    func cancel(_ id: UInt64) {
        pending.withLock { $0.byId.removeValue(forKey: id) }?.cancel()
    }

    /// How many deadlines are waiting (for tests).
    var pendingCount: Int { pending.withLock { $0.byId.count } }
}
