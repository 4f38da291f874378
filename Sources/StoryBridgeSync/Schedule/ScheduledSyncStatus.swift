import Foundation
import Synchronization

/// What serve's built-in sync has done and will do next, for the health endpoint: shared between
/// the sync service that writes it and the requests that read it.
package final class ScheduledSyncStatus: Sendable {
    /// One finished (or skipped) run.
    package struct Run: Sendable, Hashable {
        package var finishedAt: Date
        /// Whether everything the run set out to do was done.
        package var succeeded: Bool
        /// A line for people: what it did, or why it failed.
        package var summary: String
        /// The run's exit status, as `storybridge sync` would exit (`SyncExitStatus`: 0 done, 75 skipped, …).
        package var exitStatus: Int32

        package init(finishedAt: Date, succeeded: Bool, summary: String, exitStatus: Int32) {
            self.finishedAt = finishedAt
            self.succeeded = succeeded
            self.summary = summary
            self.exitStatus = exitStatus
        }
    }

    package struct Snapshot: Sendable, Hashable {
        package var lastRun: Run?
        /// The first failed run since the last success (nil while runs succeed).
        package var failingSince: Date?
        package var nextRunAt: Date?
        package var running: Bool
    }

    private let state = Mutex(Snapshot(lastRun: nil, failingSince: nil, nextRunAt: nil, running: false))

    package init() {}

    package var snapshot: Snapshot { state.withLock { $0 } }

    /// A run starts (the next one is not planned yet).
    package func started() {
        state.withLock {
            $0.running = true
            $0.nextRunAt = nil
        }
    }

    /// A run ended with `run`.
    package func finished(_ run: Run) {
        state.withLock {
            $0.running = false
            $0.lastRun = run
            $0.failingSince = run.succeeded ? nil : ($0.failingSince ?? run.finishedAt)
        }
    }

    /// The next run is planned for `date`.
    package func planned(_ date: Date) {
        state.withLock { $0.nextRunAt = date }
    }
}
