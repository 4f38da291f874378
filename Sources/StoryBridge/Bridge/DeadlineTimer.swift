import Synchronization

/// Fires the deadlines of every request of a bridge from one shared ticking task, instead of one
/// sleeping task per request (which was a large part of the cost of a cheap command).
///
/// Time is the bridge's ``HostClock``: the ticks sleep on it and deadlines are compared with its
/// ``HostClock/instant``, so a test with a manual clock fires a deadline by moving time forward.
final class DeadlineTimer: Sendable {
    private struct State {
        var entries: [UInt64: (deadline: ContinuousClock.Instant, fire: @Sendable () -> Void)] = [:]
        var nextId: UInt64 = 0
        var ticking = false
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
            state.entries[state.nextId] = (deadline, fire)
            let start = !state.ticking
            state.ticking = true
            return (state.nextId, start)
        }
        if startTicking { Task { await self.tick() } }
        return id
    }

    /// Forgets a deadline that is no longer needed.
    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    private func tick() async {
        while true {
            try? await clock.sleep(for: resolution)
            let now = clock.instant
            let (due, keepTicking) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                var due: [@Sendable () -> Void] = []
                for (id, entry) in state.entries where entry.deadline <= now {
                    due.append(entry.fire)
                    state.entries.removeValue(forKey: id)
                }
                if state.entries.isEmpty { state.ticking = false }
                return (due, !state.entries.isEmpty)
            }
            for fire in due { fire() }
            if !keepTicking { return }
        }
    }
}
