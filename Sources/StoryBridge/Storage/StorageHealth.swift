import Foundation
import Synchronization

/// Whether the database takes writes. The first write that fails for lack of space (or any
/// other ``StorageError``) starts an *episode*: observers hear of it once, however many writes
/// fail during it. The first write that succeeds afterwards ends it (the space came back) and
/// observers hear of that too. Nothing has to be restarted.
package final class StorageHealth: Sendable {
    /// A change observers are told of.
    package enum Change: Sendable, Hashable {
        /// Writes started failing with this error (once per episode).
        case degraded(StorageError)
        /// A write succeeded again after an episode.
        case recovered
        /// A write failed (every failure, episode or not): for counting.
        case writeFailed(StorageError)
    }

    private struct State {
        var failing: StorageError?
        var episodes = 0
        var observers: [@Sendable (Change) -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// The error of the episode in progress, `nil` while writes succeed.
    package var currentFailure: StorageError? { state.withLock { $0.failing } }

    /// How many episodes of failing writes there have been.
    package var episodes: Int { state.withLock { $0.episodes } }

    /// Calls `observer` on every change, from the thread of the write that caused it.
    package func observe(_ observer: @escaping @Sendable (Change) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    func writeFailed(_ error: StorageError) {
        let (observers, started) = state.withLock { state -> ([@Sendable (Change) -> Void], Bool) in
            let started = state.failing == nil
            if started { state.episodes += 1 }
            state.failing = error
            return (state.observers, started)
        }
        for observer in observers {
            observer(.writeFailed(error))
            if started { observer(.degraded(error)) }
        }
    }

    func writeSucceeded() {
        let observers = state.withLock { state -> [@Sendable (Change) -> Void] in
            guard state.failing != nil else { return [] }
            state.failing = nil
            return state.observers
        }
        for observer in observers { observer(.recovered) }
    }
}
