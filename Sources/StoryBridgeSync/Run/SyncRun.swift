import Foundation
import StoryBridge

/// One run of a sync: the catalog's metadata, then (when asked, and inside the download window)
/// the packages; what it did, the exit status it ends with and the record kept for
/// `sync --status`. `storybridge sync` and `serve --sync-every` both run it, so a run means the
/// same thing and is recorded the same way from either; each caller takes the sync lock and opens
/// the ``SyncService`` itself (the command fails on a taken lock, `serve` skips the run).
package struct SyncRun: Sendable {
    /// What happens to presentations the service no longer offers.
    package var removals = RemovalPolicy()
    /// Whether packages are synced after the catalog (`--content`).
    package var content = true
    /// The presentations whose packages are synced (nil: all).
    package var ids: [Int]?
    /// Downloads at a time.
    package var concurrency = 2
    /// Earlier revisions kept per presentation for `storybridge rollback` and `diff`.
    package var keepRevisions = 1
    /// At most this many bytes a second over all downloads.
    package var rateLimit: TransferRate?
    /// Packages are downloaded only inside this window (the catalog is synced at every run).
    package var window: SyncWindow?
    /// The pinned root's file and whether unsigned packages are refused.
    package var trust = TrustPolicy()

    package init() {}

    /// What a run did.
    package struct Outcome: Sendable {
        /// The catalog's report, unless the run failed before it was made.
        package var metadata: MetadataSyncReport?
        /// The packages' report, when packages were synced.
        package var content: ContentSyncReport?
        /// Why the run stopped, when it did.
        package var failure: SyncError?
        /// Packages were due but the download window was closed.
        var waitedForWindow: SyncWindow?

        /// The exit status of `storybridge sync` for this run (see ``SyncExitStatus``).
        package var exitStatus: Int32 {
            if let failure { return SyncExitStatus.code(for: failure) }
            if let first = content?.failed.first { return SyncExitStatus.code(for: first.error) }
            return metadata?.isPartial == true ? SyncExitStatus.partial : 0
        }

        /// What the run left undone, one line each (printed by `sync`, kept for `sync --status`).
        package var notes: [String] {
            if let failure { return [failure.description] }
            return (metadata.map(SyncRunSummary.notes) ?? []) + (content?.failed.map(\.error.description) ?? [])
        }

        /// One line: the catalog's and the packages' summaries, or why the run failed.
        package var summary: String {
            if let failure { return failure.description }
            var parts = metadata.map { [SyncRunSummary.describe($0)] } ?? []
            if let waitedForWindow { parts.append("downloads wait for the window \(waitedForWindow)") }
            if let content { parts.append(SyncRunSummary.describe(content)) }
            return parts.joined(separator: "; ")
        }

        /// The record `sync --status` shows for this run.
        package func record(finishedAt: Date = Date()) -> SyncRunRecord {
            SyncRunRecord(finishedAt: finishedAt, exitStatus: exitStatus, notes: notes)
        }

        /// The same outcome stopped by Ctrl-C or a shutdown: a failure becomes ``SyncError/interrupted``.
        package func interrupted() -> Outcome {
            guard failure != nil else { return self }
            var stopped = self
            stopped.failure = .interrupted
            return stopped
        }

        /// A run that failed before it started (the library or the session could not be opened).
        package static func failed(_ error: SyncError) -> Outcome {
            Outcome(failure: error)
        }
    }

    /// Syncs the catalog, then the packages when ``content`` is set and `now` is inside ``window``;
    /// `events` hears each package's progress.
    package func run(
        _ service: SyncService, now: Date = Date(), events: @escaping @Sendable (ContentSyncEvent) -> Void = { _ in }
    ) async -> Outcome {
        var outcome = Outcome()
        do throws(SyncError) {
            let removals = self.removals
            let metadata = try await PhaseTiming.measure("metadata sync") { () async throws(SyncError) in
                try await service.syncMetadata(removals: removals)
            }
            outcome.metadata = metadata
            guard content else { return outcome }
            if let window, !window.contains(now) {
                outcome.waitedForWindow = window
                return outcome
            }
            let (ids, concurrency, keepRevisions, rateLimit, trust) = (ids, concurrency, keepRevisions, rateLimit, trust)
            outcome.content = try await PhaseTiming.measure("content sync") { () async throws(SyncError) in
                try await service.syncContent(
                    ids: ids, concurrency: concurrency, keepRevisions: keepRevisions, rateLimit: rateLimit, trust: trust,
                    events: events)
            }
        } catch {
            outcome.failure = error
        }
        return outcome
    }
}
