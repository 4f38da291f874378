import StoryBridgeScripts
import Testing

/// When `storybridge kiosk` resets an idle screen (docs/design/FLEET.md §9.4).
@Suite("Kiosk idle reset: when a screen is reset")
struct IdleResetMachineTests {
    @Test("a screen nobody touched is never reset; after input it is reset once the idle time has passed since the last input")
    func afterInput() {
        var machine = IdleResetMachine(idleAfter: .seconds(2))
        let t0 = ContinuousClock.now
        var began: Bool
        // Untouched since the start: no reset however long.
        began = machine.tick(at: t0 + .seconds(3600))
        #expect(!began)
        #expect(machine.lastInputSecondsAgo(at: t0) == nil)
        machine.inputSeen(at: t0)
        began = machine.tick(at: t0 + .milliseconds(1999))
        #expect(!began)
        // More input restarts the count.
        machine.inputSeen(at: t0 + .milliseconds(1500))
        began = machine.tick(at: t0 + .seconds(3))
        #expect(!began)
        #expect(machine.lastInputSecondsAgo(at: t0 + .seconds(3)) == 1)
        began = machine.tick(at: t0 + .milliseconds(3500))
        #expect(began)
        #expect(machine.isResetting)
        // No second reset while one is under way.
        began = machine.tick(at: t0 + .seconds(10))
        #expect(!began)
        machine.resetFinished()
        #expect(machine.resets == 1 && !machine.isResetting)
        // Nobody touched the fresh screen: it stays as it is.
        began = machine.tick(at: t0 + .seconds(3600))
        #expect(!began)
        // The last input's age goes on being reported after the reset.
        #expect(machine.lastInputSecondsAgo(at: t0 + .milliseconds(11500)) == 10)
        // New input: reset again after the idle time.
        machine.inputSeen(at: t0 + .seconds(4000))
        began = machine.tick(at: t0 + .seconds(4002))
        #expect(began)
        machine.resetFinished()
        #expect(machine.resets == 2)
    }

    @Test("input seen while a reset runs (on the fresh page) counts for the next one; a finish without a reset changes nothing")
    func inputDuringReset() {
        var machine = IdleResetMachine(idleAfter: .seconds(2))
        let t0 = ContinuousClock.now
        var began: Bool
        machine.resetFinished()
        #expect(machine.resets == 0)
        machine.inputSeen(at: t0)
        began = machine.tick(at: t0 + .seconds(2))
        #expect(began)
        machine.inputSeen(at: t0 + .milliseconds(2500))
        machine.resetFinished()
        began = machine.tick(at: t0 + .seconds(4))
        #expect(!began)
        began = machine.tick(at: t0 + .milliseconds(4500))
        #expect(began)
    }

    @Test("a browser started again shows an untouched start page: no reset is due until new input")
    func browserRestart() {
        var machine = IdleResetMachine(idleAfter: .seconds(2))
        let t0 = ContinuousClock.now
        machine.inputSeen(at: t0)
        machine.browserStarted()
        let began = machine.tick(at: t0 + .seconds(60))
        #expect(!began)
        #expect(machine.lastInputSecondsAgo(at: t0 + .seconds(60)) == 60)
    }

    @Test("an idle time of 0 turns resets off; input is still reported")
    func off() {
        var machine = IdleResetMachine(idleAfter: .zero)
        let t0 = ContinuousClock.now
        #expect(!machine.isOn)
        machine.inputSeen(at: t0)
        let began = machine.tick(at: t0 + .seconds(3600))
        #expect(!began)
        #expect(machine.lastInputSecondsAgo(at: t0 + .seconds(5)) == 5)
    }
}
