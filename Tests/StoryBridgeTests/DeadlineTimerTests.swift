import Foundation
import StoryBridgeTesting
import Synchronization
import Testing

@testable import StoryBridge

@Suite("Deadline timer")
struct DeadlineTimerTests {
    @Test("a deadline fires once it has passed, a cancelled one never, and the timer forgets both")
    func firesDueDeadlinesOnly() async throws {
        let clock = ManualHostClock()
        let timer = DeadlineTimer(clock: clock)
        let fired = Mutex<[String]>([])
        let start = clock.instant
        _ = timer.schedule(at: start + .seconds(2)) { fired.withLock { $0.append("two") } }
        _ = timer.schedule(at: start + .seconds(1)) { fired.withLock { $0.append("one") } }
        let cancelled = timer.schedule(at: start + .seconds(1)) { fired.withLock { $0.append("cancelled") } }
        timer.cancel(cancelled)
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(1_010))
        #expect(await eventually { fired.withLock { $0 } == ["one"] })
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(1))
        #expect(await eventually { fired.withLock { $0 } == ["one", "two"] })
        #expect(timer.pendingCount == 0)
    }

    @Test("many requests in flight, almost all cancelled, leave only the live deadlines to fire")
    func manyCancelled() async throws {
        let clock = ManualHostClock()
        let timer = DeadlineTimer(clock: clock)
        let fired = Mutex(0)
        let start = clock.instant
        var kept: [UInt64] = []
        for index in 0..<20_000 {
            let id = timer.schedule(at: start + .seconds(10) + .microseconds(index)) { fired.withLock { $0 += 1 } }
            if index % 1_000 == 0 { kept.append(id) } else { timer.cancel(id) }
        }
        #expect(timer.pendingCount == kept.count)
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(11))
        #expect(await eventually { fired.withLock { $0 } == kept.count })
        #expect(timer.pendingCount == 0)
    }

    @Test("on the system clock, a deadline fires once, not early, and a cancelled one never")
    func systemClock() async throws {
        let timer = DeadlineTimer(clock: SystemHostClock())
        let fired = Mutex<[(name: String, at: ContinuousClock.Instant)]>([])
        let start = ContinuousClock.now
        _ = timer.schedule(at: start + .milliseconds(60)) { fired.withLock { $0.append(("late", ContinuousClock.now)) } }
        _ = timer.schedule(at: start + .milliseconds(30)) { fired.withLock { $0.append(("soon", ContinuousClock.now)) } }
        let cancelled = timer.schedule(at: start + .milliseconds(30)) { fired.withLock { $0.append(("cancelled", ContinuousClock.now)) } }
        timer.cancel(cancelled)
        #expect(timer.pendingCount == 2)
        #expect(await eventually { fired.withLock { $0.count } == 2 })
        // Time for a second (wrong) firing or the cancelled one to show up.
        try await Task.sleep(for: .milliseconds(150))
        let names = fired.withLock { $0.map(\.name) }
        #expect(names == ["soon", "late"])
        for entry in fired.withLock({ $0 }) {
            #expect(entry.at >= start + .milliseconds(entry.name == "soon" ? 30 : 60), "\(entry.name) fired early")
        }
        #expect(timer.pendingCount == 0)
    }
}
