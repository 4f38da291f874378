import Foundation

/// A kiosk's presence on the hub (docs/design/FLEET.md §5.3).
package enum KioskPresence: String, Sendable, Codable, CaseIterable {
    /// Added, never connected.
    case new
    /// A beat arrived less than two intervals ago.
    case online
    /// No beat for two intervals.
    case late
    /// No beat for three intervals, or the kiosk said `bye`.
    case offline
}

/// One kiosk's presence as a plain state machine: events (a beat, a `bye`, the clock's tick) go
/// in, the transition they cause (if any) comes out. Timing runs on the hub's monotonic instants;
/// dates are for display and the `state_change` rows.
///
/// - A beat makes the kiosk `online` (a transition only when it was not).
/// - No beat for `2·I` makes it `late`, for `3·I` `offline`; each transition is dated at its
///   deadline (`lastBeat + 2·I`), not at the tick that noticed it.
/// - `bye` makes it `offline` at once (reason `stopped`).
/// - A closed socket alone changes nothing: a reconnect within an interval must not flap.
/// - After a hub restart the deadlines count from the hub's start (``init(restoring:…)``).
package struct KioskPresenceMachine: Sendable, Equatable {
    /// One change of presence.
    package struct Transition: Sendable, Equatable {
        /// The presence before.
        package var from: KioskPresence
        /// The presence after.
        package var to: KioskPresence
        /// When it happened (a deadline's own time for `late` and `offline`).
        package var at: Date
        /// Why: `beat`, `no beat for 60 s`, `no beat since the hub started`, `stopped`.
        package var reason: String

        /// A transition.
        package init(from: KioskPresence, to: KioskPresence, at: Date, reason: String) {
            self.from = from
            self.to = to
            self.at = at
            self.reason = reason
        }
    }

    /// The presence now.
    package private(set) var presence: KioskPresence
    /// Since when.
    package private(set) var since: Date
    /// The beat interval `I`.
    package private(set) var interval: Duration
    /// What deadlines count from: the last beat, or the hub's start for a kiosk restored online or late.
    private var reference: ContinuousClock.Instant?
    /// Whether ``reference`` is the hub's start rather than a beat.
    private var sinceHubStart: Bool

    /// A kiosk just added (`new`): no deadline until its first beat.
    package init(since: Date, interval: Duration = .seconds(30)) {
        presence = .new
        self.since = since
        self.interval = interval
        reference = nil
        sinceHubStart = false
    }

    /// A kiosk restored from `kiosk_state` when the hub starts at `hubStart`: one saved `online` or
    /// `late` counts its deadlines from then (as if a beat had come then); `new` and `offline` stay
    /// so until a beat.
    package init(restoring presence: KioskPresence, since: Date, interval: Duration, hubStart: ContinuousClock.Instant) {
        self.presence = presence
        self.since = since
        self.interval = interval
        let counting = presence == .online || presence == .late
        reference = counting ? hubStart : nil
        sinceHubStart = counting
    }

    /// A beat received at `instant` (`date` on the wall clock), with the interval the kiosk says.
    package mutating func beat(at instant: ContinuousClock.Instant, date: Date, interval: Duration? = nil) -> Transition? {
        if let interval { self.interval = interval }
        reference = instant
        sinceHubStart = false
        return move(to: .online, at: date, reason: "beat")
    }

    /// The kiosk said `bye` (a graceful stop).
    package mutating func bye(date: Date) -> Transition? {
        reference = nil
        return move(to: .offline, at: date, reason: "stopped")
    }

    /// When ``evaluate(now:date:)`` will next move the kiosk if no beat comes: `late` at `2·I`
    /// after the reference, `offline` at `3·I`; `nil` when no deadline runs (`new`, `offline`).
    var nextDeadline: ContinuousClock.Instant? {
        guard let reference else { return nil }
        switch presence {
        case .online: return reference + interval * 2
        case .late: return reference + interval * 3
        default: return nil
        }
    }

    /// The clock reads `instant` (`date`): `late` at `2·I` after the reference, `offline` at `3·I`.
    package mutating func evaluate(now instant: ContinuousClock.Instant, date: Date) -> Transition? {
        guard let reference, presence == .online || presence == .late else { return nil }
        let offlineAt = reference + interval * 3
        let lateAt = reference + interval * 2
        func dated(_ deadline: ContinuousClock.Instant) -> Date {
            date.addingTimeInterval(-Self.seconds(deadline.duration(to: instant)))
        }
        if instant >= offlineAt {
            self.reference = nil
            let reason = sinceHubStart ? "no beat since the hub started" : "no beat for \(Self.wholeSeconds(interval * 3)) s"
            return move(to: .offline, at: dated(offlineAt), reason: reason)
        }
        if instant >= lateAt, presence == .online {
            let reason = sinceHubStart ? "no beat since the hub started" : "no beat for \(Self.wholeSeconds(interval * 2)) s"
            return move(to: .late, at: dated(lateAt), reason: reason)
        }
        return nil
    }

    private mutating func move(to next: KioskPresence, at date: Date, reason: String) -> Transition? {
        guard next != presence else { return nil }
        let transition = Transition(from: presence, to: next, at: date, reason: reason)
        presence = next
        since = date
        return transition
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func wholeSeconds(_ duration: Duration) -> Int {
        Int(seconds(duration).rounded())
    }
}
