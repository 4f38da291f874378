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
}
