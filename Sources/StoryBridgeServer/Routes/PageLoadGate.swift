import StoryBridge
import Synchronization

/// Holds a page connection's requests until its page load has been recorded (the slide view of
/// the slide left, a new or restored session: SQLite writes), except requests of a page load that
/// keeps its session whose commands only read memory (`.fromMemory(.readsOnly)`), which are
/// answered at once: they read what the memory half of the page load has already set (current
/// slide, history, navigation data...). So the first answer of a new slide does not wait for the
/// database.
///
/// Requests are let through in the order they arrive: once one waits, every later one waits too.
final class PageLoadGate: Sendable {
    /// Whether every request of `frame` is a command that only reads memory.
    static func onlyReadsMemory(_ frame: RoutedFrame) -> Bool {
        func readsOnly(_ item: RoutedFrame.Item) -> Bool {
            if case .routed(let routed) = item { return routed.policy.isReadOnly }
            return false
        }
        switch frame {
        case .one(let item): return readsOnly(item)
        case .queue(let items): return !items.isEmpty && items.allSatisfy(readsOnly)
        }
    }

    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let earlyAnswers: Bool

    /// `earlyAnswers`: whether read-only requests may pass before the gate opens (the page load
    /// keeps the viewer's session).
    init(earlyAnswers: Bool) {
        self.earlyAnswers = earlyAnswers
    }

    /// Lets every waiting and later request through.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the gate has opened: every request passes at once (checked without a call to
    /// ``admit(_:)``, on the path of every frame).
    var isOpen: Bool { state.withLock { $0.open } }

    /// Returns when `frame` (as routed, by the policies its routes carry; `nil` for anything else
    /// the connection does) may be dispatched. Called by the connection's reading task only, one
    /// frame at a time.
    func admit(_ frame: RoutedFrame?) async {
        if isOpen { return }
        if earlyAnswers, let frame, Self.onlyReadsMemory(frame) { return }
        await withCheckedContinuation { continuation in
            let alreadyOpen = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if alreadyOpen { continuation.resume() }
        }
    }
}
