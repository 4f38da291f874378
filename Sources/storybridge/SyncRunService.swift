import Foundation
import ServiceLifecycle
import StoryBridgeSync
import Synchronization

/// `storybridge sync` as a service of a `ServiceGroup` whose graceful-shutdown signals are SIGINT
/// (Ctrl-C) and SIGTERM: the sync runs in a task of its own that a graceful shutdown (or the
/// service's own cancellation) cancels, so downloads stop where they are and keep their partial
/// files. The service ends when the sync does, which ends the group.
final class SyncRunService: Service, Sendable {
    typealias Work = @Sendable () async -> SyncRun.Outcome

    private let work: Work
    private let result = Mutex<SyncRun.Outcome?>(nil)
    private let stopped = Atomic<Bool>(false)

    init(_ work: @escaping Work) {
        self.work = work
    }

    /// What the sync returned (nil before ``run()`` ends).
    var outcome: SyncRun.Outcome? { result.withLock { $0 } }

    /// Whether a signal (or a cancellation of the group) stopped the sync.
    var wasInterrupted: Bool { stopped.load(ordering: .relaxed) }

    func run() async {
        let task = Task { await work() }
        let value = await withTaskCancellationOrGracefulShutdownHandler {
            await task.value
        } onCancelOrGracefulShutdown: {
            guard !self.stopped.exchange(true, ordering: .relaxed) else { return }
            Terminal.warn("\ninterrupted: stopping the downloads (partial files are kept)")
            task.cancel()
        }
        result.withLock { $0 = value }
    }
}
