import Synchronization

/// A one-way signal: closed until ``open()``, then open for good. Waiters and actions registered
/// before that run at the opening; later ones run at once.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var actions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Whether ``open()`` has been called.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the latch and runs what waited for it, on the calling thread. Opening twice does nothing.
    func open() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.actions = [] }
            return state.actions
        }
        for action in actions { action() }
    }

    /// Runs `action` once the latch is open: now, on the calling thread, when it already is.
    func whenOpen(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard !state.isOpen else { return true }
            state.actions.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Returns once the latch is open; without suspending when it already is.
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenOpen { continuation.resume() }
        }
    }
}
