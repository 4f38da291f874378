import Foundation

/// The fleet agent's connection state as a plain machine (docs/design/FLEET.md §3.2): events go
/// in, the one action to carry out next comes out. It holds no socket and reads no clock; the
/// agent gives it instants and dates.
///
/// ```
/// connecting(n) ──fail──▶ waiting(until, n+1) ──until reached──▶ connecting
///      │ welcome
///      ▼
/// connected(since) ──closed / stalled / no pong──▶ waiting
///      401, 4401, 4403 ──▶ refused(until now + 10 min) ──▶ connecting
/// ```
///
/// It also keeps the hub's unreachable time: from the first failed attempt after being connected
/// (or at start), the first beat that gets through carries it, until the hub acknowledges it.
package struct FleetAgentState: Sendable, Equatable {
    /// Where the agent is.
    package enum Phase: Sendable, Equatable {
        /// An attempt is under way.
        case connecting(attempt: Int)
        /// Connected (welcomed) since then.
        case connected(since: ContinuousClock.Instant)
        /// Waiting before the next attempt.
        case waiting(until: ContinuousClock.Instant)
        /// The hub refused the token or the host; the next attempt after a long wait.
        case refused(until: ContinuousClock.Instant)
    }

    /// What the agent must do now.
    package enum Action: Sendable, Equatable {
        /// Open a connection.
        case connect
        /// Wait this long, then report ``Event/waitOver``.
        case wait(Duration)
        /// Wait this long, then report ``Event/waitOver``; log the refusal (at error level) when `log` is set.
        case waitRefused(Duration, reason: String, log: Bool)
        /// Nothing (the connection runs).
        case none
    }

    /// What happened.
    package enum Event: Sendable, Equatable {
        /// The agent starts.
        case start
        /// The hub welcomed the hello.
        case welcomed
        /// The attempt failed (no connection, an error answer, a close before the welcome);
        /// `retryAfter` from a 503.
        case attemptFailed(retryAfter: Duration?)
        /// The hub refused the token (401, 4401) or the host (4403).
        case refused(reason: String)
        /// A connection that was welcomed ended.
        case closed
        /// A wait is over.
        case waitOver
    }

    /// How long a refused agent waits.
    static let refusedWait: Duration = .seconds(600)

    /// The phase.
    package private(set) var phase: Phase = .connecting(attempt: 0)
    /// The back-off.
    package private(set) var backoff = Backoff()
    /// Since when the hub is unreachable (the kiosk's wall clock), and how many attempts failed.
    package private(set) var unreachable: (since: Date, attempts: Int)?
    /// The last refusal logged (a refusal is logged once until a connection succeeds).
    private var loggedRefusal: String?

    /// A machine before ``Event/start``.
    package init() {}

    /// Applies `event` at `now` (`date` on the wall clock); `jitter` is the back-off's random factor.
    package mutating func handle(
        _ event: Event, now: ContinuousClock.Instant, date: Date, jitter: Double = 1
    ) -> Action {
        switch event {
        case .start:
            phase = .connecting(attempt: 1)
            return .connect
        case .welcomed:
            phase = .connected(since: now)
            loggedRefusal = nil
            return .none
        case .attemptFailed(let retryAfter):
            noteFailure(date)
            let wait = backoff.next(jitter: jitter, retryAfter: retryAfter)
            phase = .waiting(until: now + wait)
            return .wait(wait)
        case .refused(let reason):
            noteFailure(date)
            phase = .refused(until: now + Self.refusedWait)
            let log = loggedRefusal != reason
            loggedRefusal = reason
            return .waitRefused(Self.refusedWait, reason: reason, log: log)
        case .closed:
            // A closed connection is not yet a failure: the next attempt may succeed at once.
            if case .connected(let since) = phase { backoff.connectionEnded(after: since.duration(to: now)) }
            let wait = backoff.next(jitter: jitter)
            phase = .waiting(until: now + wait)
            return .wait(wait)
        case .waitOver:
            phase = .connecting(attempt: backoff.failures + 1)
            return .connect
        }
    }

    /// The `hubUnreachable` of the next beat at `date`, or nil when the hub was reachable.
    package func hubUnreachable(at date: Date) -> (since: Date, seconds: Int, attempts: Int)? {
        unreachable.map { ($0.since, Int(date.timeIntervalSince($0.since).rounded()), $0.attempts) }
    }

    /// The hub acknowledged a beat that carried the unreachable time: it is cleared.
    package mutating func unreachableReported() {
        unreachable = nil
    }

    private mutating func noteFailure(_ date: Date) {
        if var known = unreachable {
            known.attempts += 1
            unreachable = known
        } else {
            unreachable = (date, 1)
        }
    }

    package static func == (left: FleetAgentState, right: FleetAgentState) -> Bool {
        left.phase == right.phase && left.backoff == right.backoff && left.unreachable?.since == right.unreachable?.since
            && left.unreachable?.attempts == right.unreachable?.attempts && left.loggedRefusal == right.loggedRefusal
    }
}
