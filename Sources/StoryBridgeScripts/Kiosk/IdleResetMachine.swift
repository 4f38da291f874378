/// When `storybridge kiosk` resets an idle screen (docs/design/FLEET.md §9.4), as a plain value:
/// input, ticks and the end of a reset in, the decision out. A reset comes after ``idleAfter``
/// without input **since the last input**: a screen nobody touched since the last reset (or since
/// the kiosk started) is never reset, so an unattended kiosk does not reload its deck every
/// ``idleAfter``. An ``idleAfter`` of zero turns resets off.
package struct IdleResetMachine: Sendable, Equatable {
    /// How long without input before a reset; zero is off.
    package let idleAfter: Duration
    /// Resets done since the kiosk started.
    package private(set) var resets = 0
    /// Whether a reset has begun and not yet finished.
    package private(set) var isResetting = false
    /// The last input seen, whatever resets came after it (for `lastInputSecondsAgo`).
    private var lastInput: ContinuousClock.Instant?
    /// The last input not yet followed by a reset: what the idle time counts from.
    private var pendingInput: ContinuousClock.Instant?
    /// When the reset under way began.
    private var resetBegan: ContinuousClock.Instant?

    /// A machine resetting after `idleAfter` without input (zero: never).
    package init(idleAfter: Duration) {
        self.idleAfter = idleAfter
    }

    /// Whether resets are on.
    package var isOn: Bool { idleAfter > .zero }

    /// Someone touched the screen at `now`.
    package mutating func inputSeen(at now: ContinuousClock.Instant) {
        lastInput = now
        pendingInput = now
    }

    /// The time is `now`: whether a reset begins. It does when resets are on, none is under way,
    /// and the last input not yet followed by a reset is at least ``idleAfter`` old.
    package mutating func tick(at now: ContinuousClock.Instant) -> Bool {
        guard isOn, !isResetting, let pendingInput, now - pendingInput >= idleAfter else { return false }
        isResetting = true
        resetBegan = now
        return true
    }

    /// The reset begun by ``tick(at:)`` is over (serve answered `idleDone`, or did not in time,
    /// and the fresh page is open): it counts, and the screen waits for new input before the
    /// next. Input seen while the reset ran (on the fresh page) is kept.
    package mutating func resetFinished() {
        guard isResetting else { return }
        resets += 1
        if let pendingInput, let resetBegan, pendingInput <= resetBegan { self.pendingInput = nil }
        isResetting = false
        resetBegan = nil
    }

    /// A fresh browser was started (the previous one ended): it shows the start page, which
    /// nobody has touched yet, so no reset is due until someone does.
    package mutating func browserStarted() {
        pendingInput = nil
    }

    /// Whole seconds since the last input at `now`; nil when there was none.
    package func lastInputSecondsAgo(at now: ContinuousClock.Instant) -> Int? {
        lastInput.map { max(0, Int((now - $0).components.seconds)) }
    }
}
