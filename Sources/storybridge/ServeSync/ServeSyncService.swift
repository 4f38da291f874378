import Foundation
import Logging
import ServiceLifecycle
import StoryBridge
import StoryBridgeSync

/// `serve --sync-every`: runs `storybridge sync --content` inside serve's service group on a
/// ``SyncSchedule``, downloads only inside the `--sync-window` (the catalog is synced at every run),
/// at most `--limit-rate`. A run takes the data folder's sync lock like the command does, so one
/// sync runs at a time across processes; a run that finds it taken is skipped and says so. What
/// each run did is recorded for `sync --status` and published in ``status`` for the health
/// endpoint. Serve's catalog watcher then serves the new revisions. A graceful shutdown cancels
/// a run where it is (partial downloads are kept, as with Ctrl-C of `sync`).
struct ServeSyncService: Service {
    var schedule: SyncSchedule
    var window: SyncWindow?
    var rateLimit: TransferRate?
    /// Earlier revisions kept per presentation for `storybridge rollback`.
    var keepRevisions = 1
    /// The config's `trust.rootFile` and `trust.requireSigned`.
    var trust = TrustPolicy()
    var directory: DataDirectory
    var status: ScheduledSyncStatus
    var logger: Logger

    func run() async throws {
        var random = SystemRandomNumberGenerator()
        var delay = schedule.firstDelay(using: &random)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            status.planned(Date().addingTimeInterval(delay / .seconds(1)))
            let wait = delay
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                return
            }
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            status.started()
            // A shutdown cancels the run where it is: partial downloads stay for the next one.
            let run = await cancelWhenGracefulShutdown { await runOnce() }
            status.finished(run)
            logger.log(
                level: run.succeeded ? .info : .warning, "scheduled sync: \(run.summary)",
                metadata: ["next": "\(schedule.interval)"])
            delay = schedule.nextDelay(using: &random)
        }
    }

    /// One sync of the catalog, and of the packages when inside the window. Taking the lock,
    /// opening the library and saving the run's record run on the blocking pool (``BlockingIO``):
    /// this runs inside `serve`, beside the pages' commands.
    func runOnce(now: Date = Date()) async -> ScheduledSyncStatus.Run {
        let paths = SyncPaths(directory)
        let lock: SyncLock
        do {
            lock = try await BlockingIO.run { () throws(SyncError) in try SyncLock(file: paths.lockFile) }
        } catch {
            return .init(finishedAt: Date(), succeeded: true, summary: "skipped: \(error.description)", exitStatus: SyncExitStatus.busy)
        }
        defer { withExtendedLifetime(lock) {} }
        let service: SyncService
        do {
            service = try await BlockingIO.run { [directory, logger] () throws(SyncError) in
                try SyncService(directory: directory, logger: logger)
            }
        } catch {
            return await Self.finish(.failed(error), paths)
        }
        var plan = SyncRun()
        plan.keepRevisions = keepRevisions
        plan.rateLimit = rateLimit
        plan.window = window
        plan.trust = trust
        let outcome = await plan.run(service, now: now)
        await service.shutdown()
        return await Self.finish(outcome, paths)
    }

    /// Keeps the outcome's record for `sync --status` (a failure to keep it is not the run's) and
    /// says what the run did for the health endpoint and the log.
    private static func finish(_ outcome: SyncRun.Outcome, _ paths: SyncPaths) async -> ScheduledSyncStatus.Run {
        let record = outcome.record()
        await BlockingIO.run { _ = try? record.save(paths) }
        return .init(
            finishedAt: record.finishedAt, succeeded: outcome.exitStatus == 0, summary: outcome.summary, exitStatus: outcome.exitStatus)
    }
}
