import ArgumentParser
import Foundation
import Logging
import StoryBridge
import StoryBridgeSync

/// serve's built-in sync: `--sync-every`, `--sync-window`, `--limit-rate` (each also in the
/// config's `sync` section; the flags win). Its runs judge packages by the config's `trust`
/// section (`trust.rootFile`, `trust.requireSigned`), as `sync --config` does.
struct ServeSyncOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Sync the served library (catalog and packages, as sync --content) every DURATION while serving, each wait moved by up to a tenth either way: 15m, 1h (config sync.every). Needs storybridge login.",
            valueName: "duration"))
    var syncEvery: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "With --sync-every: download packages only between these local times (the catalog syncs at every run): 01:00-05:00 (config sync.window).",
            valueName: "HH:MM-HH:MM"))
    var syncWindow: String?

    @Option(help: TransferRate.help)
    var limitRate: TransferRate?

    @Option(
        help:
            "With --sync-every: earlier revisions of each presentation kept on disk for storybridge rollback (config sync.keepRevisions; default 1)."
    )
    var keepRevisions: Int?

    func validate() throws {
        if let syncWindow {
            do { _ = try SyncWindow(syncWindow) } catch { throw ValidationError("--sync-window: \(error.description)") }
        }
        if let keepRevisions, keepRevisions < 0 { throw ValidationError("--keep-revisions must be 0 or more") }
        if let syncEvery, let every = syncEvery.duration, every < .seconds(1) {
            throw ValidationError("--sync-every must be at least 1s")
        }
    }

    /// The service to add to serve's group, or nil when no sync is configured; `trust` is the
    /// config's `trust` section its runs apply.
    func resolve(
        _ settings: SyncSettings, trust: TrustSettings = TrustSettings(), servingLibrary: Bool, directory: DataDirectory,
        status: ScheduledSyncStatus, logger: Logger
    ) throws -> ServeSyncService? {
        guard let every = (syncEvery ?? settings.every)?.duration else {
            if syncWindow != nil || limitRate != nil || keepRevisions != nil {
                throw ValidationError("--sync-window, --limit-rate and --keep-revisions go with --sync-every (or the config's sync.every)")
            }
            return nil
        }
        guard every >= .seconds(1) else { throw ValidationError("--sync-every must be at least 1s") }
        guard servingLibrary else {
            throw ValidationError("--sync-every syncs the installed library: run serve without a folder, .zip or id")
        }
        var window: SyncWindow?
        if let text = syncWindow ?? settings.window {
            do { window = try SyncWindow(text) } catch { throw ValidationError("--sync-window: \(error.description)") }
        }
        var rate = limitRate
        if rate == nil, let text = settings.limitRate {
            guard let parsed = TransferRate(parsing: text) else {
                throw ValidationError("config sync.limitRate: '\(text)' is not a rate (500K, 2M)")
            }
            rate = parsed
        }
        let kept = keepRevisions ?? settings.keepRevisions ?? 1
        guard kept >= 0 else { throw ValidationError("config sync.keepRevisions must be 0 or more") }
        return ServeSyncService(
            schedule: SyncSchedule(interval: every), window: window, rateLimit: rate, keepRevisions: kept,
            trust: TrustPolicy(rootFile: trust.rootFile, requireSigned: trust.requireSigned == true), directory: directory,
            status: status, logger: logger)
    }
}
