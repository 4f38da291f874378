import HeapModule
import Synchronization

/// Fires the deadlines of every request of a bridge from one shared ticking task, instead of one
/// sleeping task per request (which was a large part of the cost of a cheap command).
///
/// Time is the bridge's ``HostClock``: the ticks sleep on it and deadlines are compared with its
/// ``HostClock/instant``, so a test with a manual clock fires a deadline by moving time forward.
final class DeadlineTimer: Sendable {
    /// A deadline in the order they fall due.
    private struct Due: Comparable {
        let deadline: ContinuousClock.Instant
        let id: UInt64

        static func < (lhs: Due, rhs: Due) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    private struct State {
        /// The deadlines not yet fired or cancelled.
        var live: [UInt64: (deadline: ContinuousClock.Instant, fire: @Sendable () -> Void)] = [:]
        /// Every scheduled deadline, soonest first, including cancelled ones (dropped when they fall
        /// due, or when they outnumber the live ones): a tick looks only at those due, so many
        /// requests in flight cost a tick nothing.
        var order = Heap<Due>()
        var nextId: UInt64 = 0
        var ticking = false

        /// Rebuilds ``order`` from the live deadlines once cancelled ones make up most of it.
        mutating func dropCancelledWhenMostly() {
            guard order.count > 1024, order.count > 4 * live.count else { return }
            order = Heap(live.map { Due(deadline: $0.value.deadline, id: $0.key) })
        }
    }

    private let state = Mutex(State())
    private let clock: any HostClock
    /// How often deadlines are checked; a deadline fires at most this late.
    let resolution: Duration

    init(clock: any HostClock, resolution: Duration = .milliseconds(20)) {
        self.clock = clock
        self.resolution = resolution
    }

    /// Calls `fire` once `deadline` has passed, unless cancelled first. Returns the id to cancel with.
    func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, startTicking) = state.withLock { state -> (UInt64, Bool) in
            state.nextId += 1
            let id = state.nextId
            state.dropCancelledWhenMostly()
            state.live[id] = (deadline, fire)
            state.order.insert(Due(deadline: deadline, id: id))
            let start = !state.ticking
            state.ticking = true
            return (id, start)
        }
        if startTicking { Task { await self.tick() } }
        return id
    }

    /// Forgets a deadline that is no longer needed.
    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.live.removeValue(forKey: id) }
    }

    /// How many deadlines are waiting (for tests).
    var pendingCount: Int { state.withLock { $0.live.count } }

    private func tick() async {
        while true {
            try? await clock.sleep(for: resolution)
            let now = clock.instant
            let (due, keepTicking) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                var due: [@Sendable () -> Void] = []
                while let soonest = state.order.min, soonest.deadline <= now {
                    state.order.removeMin()
                    if let entry = state.live.removeValue(forKey: soonest.id) { due.append(entry.fire) }
                }
                if state.live.isEmpty {
                    state.order = Heap()
                    state.ticking = false
                }
                return (due, state.ticking)
            }
            for fire in due { fire() }
            if !keepTicking { return }
        }
    }
}
