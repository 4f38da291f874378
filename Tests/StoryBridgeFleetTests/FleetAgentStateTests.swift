import Foundation
import StoryBridgeFleet
import Testing

/// The agent's back-off and connection machine, without sockets (docs/design/FLEET.md §3.2).
@Suite("Fleet agent state")
struct FleetAgentStateTests {
    @Test("back-off: 1, 2, 4, 8, 16, 32, 60 s, then 60 s; jitter within 0.8…1.2; reset after a connection of 60 s")
    func backoffSequence() {
        var backoff = Backoff()
        let waits = (0..<9).map { _ in backoff.next(jitter: 1) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        var low = Backoff()
        #expect(low.next(jitter: 0.8) == .milliseconds(800))
        #expect(low.next(jitter: 0.5) == .milliseconds(1600), "jitter is clamped to 0.8…1.2")
        #expect(low.next(jitter: 1.2) == .milliseconds(4800))
        backoff.connectionEnded(after: .seconds(59))
        #expect(backoff.next(jitter: 1) == .seconds(60))
        backoff.connectionEnded(after: .seconds(60))
        #expect(backoff.next(jitter: 1) == .seconds(1))
        var retry = Backoff()
        #expect(retry.next(jitter: 1, retryAfter: .seconds(30)) == .seconds(30))
        #expect(retry.next(jitter: 1, retryAfter: .seconds(3600)) == .seconds(300), "Retry-After obeyed up to 5 minutes")
        #expect(retry.next(jitter: 1, retryAfter: .seconds(1)) == .seconds(4), "a shorter Retry-After does not shorten the back-off")
    }

    @Test("the machine: connect, fail and wait, welcomed, closed, refused (logged once); the unreachable time from the first failure")
    func machine() {
        var state = FleetAgentState()
        let zero = ContinuousClock.now
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(state.handle(.start, now: zero, date: date) == .connect)
        #expect(state.hubUnreachable(at: date) == nil)
        #expect(state.handle(.attemptFailed(retryAfter: nil), now: zero, date: date) == .wait(.seconds(1)))
        #expect(state.phase == .waiting(until: zero + .seconds(1)))
        #expect(state.handle(.waitOver, now: zero + .seconds(1), date: date + 1) == .connect)
        #expect(state.handle(.attemptFailed(retryAfter: nil), now: zero + .seconds(1), date: date + 1) == .wait(.seconds(2)))
        #expect(state.handle(.waitOver, now: zero + .seconds(3), date: date + 3) == .connect)
        #expect(state.handle(.welcomed, now: zero + .seconds(3), date: date + 3) == .none)
        // The first beat after the welcome carries the outage: since the first failure, two attempts.
        let outage = state.hubUnreachable(at: date + 3)
        #expect(outage?.since == date && outage?.seconds == 3 && outage?.attempts == 2)
        state.unreachableReported()
        #expect(state.hubUnreachable(at: date + 4) == nil)

        // A connection of 60 s or more: the back-off starts over, and a close alone is no failure.
        #expect(state.handle(.closed, now: zero + .seconds(70), date: date + 70) == .wait(.seconds(1)))
        #expect(state.hubUnreachable(at: date + 70) == nil)
        #expect(state.handle(.waitOver, now: zero + .seconds(71), date: date + 71) == .connect)
        #expect(state.handle(.attemptFailed(retryAfter: .seconds(20)), now: zero + .seconds(71), date: date + 71) == .wait(.seconds(20)))
        #expect(state.hubUnreachable(at: date + 80)?.since == date + 71)

        // Refused: ten minutes, logged the first time only.
        #expect(state.handle(.waitOver, now: zero + .seconds(91), date: date + 91) == .connect)
        #expect(
            state.handle(.refused(reason: "401: the device token was revoked"), now: zero + .seconds(91), date: date + 91)
                == .waitRefused(.seconds(600), reason: "401: the device token was revoked", log: true))
        #expect(state.phase == .refused(until: zero + .seconds(691)))
        #expect(state.handle(.waitOver, now: zero + .seconds(691), date: date + 691) == .connect)
        #expect(
            state.handle(.refused(reason: "401: the device token was revoked"), now: zero + .seconds(691), date: date + 691)
                == .waitRefused(.seconds(600), reason: "401: the device token was revoked", log: false))
    }
}
