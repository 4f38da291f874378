import StoryBridgeTesting
import Testing

@Suite("Manual clock")
struct ManualHostClockTests {
    @Test("a task cancelled before it sleeps is not left asleep")
    func cancelledBeforeSleeping() async {
        let clock = ManualHostClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await clock.sleep(for: .seconds(5))
                return false
            } catch {
                return error is CancellationError
            }
        }
        #expect(await sleeper.value)
        #expect(clock.sleepers == 0)
    }

    @Test("sleep(until:) wakes at the date however far the clock moved before it; a passed date returns at once")
    func sleepUntilDate() async throws {
        let clock = ManualHostClock()
        let deadline = clock.now.addingTimeInterval(60)
        // Moved past the deadline before the sleep begins: no sleeper is left behind.
        clock.advance(by: .seconds(61))
        try await clock.sleep(until: deadline)
        #expect(clock.sleepers == 0)
        // A later deadline: woken by the advance that reaches it, not before.
        let later = clock.now.addingTimeInterval(30)
        let sleeper = Task { try await clock.sleep(until: later) }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(29))
        #expect(clock.sleepers == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleepers == 0)
    }
}
