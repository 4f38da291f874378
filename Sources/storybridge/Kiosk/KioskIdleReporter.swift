import Foundation
import StoryBridge
import Synchronization

/// The kiosk's half of the idle handshake (docs/design/FLEET.md §9.4): sends `idle {viewer}` on
/// the control socket that is open and waits for serve's `idleDone {viewer}`, at most
/// ``answerLimit``; with no socket open, or no answer in time, the reset goes on without it.
final class KioskIdleReporter: Sendable {
    /// How long the kiosk waits for `idleDone`.
    static let answerLimit = Duration.seconds(2)

    private struct State {
        var send: (@Sendable (KioskControlMessage) async throws -> Void)?
        var waiting: [Int: (viewer: String, continuation: CheckedContinuation<Bool, Never>)] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// A reporter with no control socket yet.
    init() {}

    /// A control socket is open: messages go out through `send`.
    func connected(_ send: @escaping @Sendable (KioskControlMessage) async throws -> Void) {
        state.withLock { $0.send = send }
    }

    /// The control socket closed: nothing can be sent, and no answer will come.
    func disconnected() {
        let waiters = state.withLock { state in
            defer {
                state.send = nil
                state.waiting = [:]
            }
            return Array(state.waiting.values)
        }
        for waiter in waiters { waiter.continuation.resume(returning: false) }
    }

    /// serve answered `idleDone {viewer}`.
    func idleDone(viewer: String) {
        let answered = state.withLock { state in
            let ids = state.waiting.filter { $0.value.viewer == viewer }.map(\.key)
            return ids.compactMap { state.waiting.removeValue(forKey: $0)?.continuation }
        }
        for continuation in answered { continuation.resume(returning: true) }
    }

    /// Tells serve that `viewer`'s screen was idle; returns whether serve answered within
    /// `limit`.
    func report(viewer: String, within limit: Duration = KioskIdleReporter.answerLimit) async -> Bool {
        guard let send = state.withLock({ $0.send }) else { return false }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state in
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.waiting[id] = (viewer, continuation)
                return id
            }
            // The wait is limited whatever the write does: a write that hangs does not hold the reset.
            Task {
                do {
                    try await send(.idle(viewer: viewer))
                } catch {
                    self.expire(id)
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        state.withLock { $0.waiting.removeValue(forKey: id)?.continuation }?.resume(returning: false)
    }
}
