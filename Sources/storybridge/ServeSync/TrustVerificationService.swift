import Foundation
import Logging
import ServiceLifecycle
import StoryBridge
import StoryBridgeSync

/// serve's scheduled verification (docs/design/TRUST.md 3.2): the first run after 30 s (or the
/// interval, when shorter), then every `trust.verifyEvery` moved by up to a tenth either way,
/// each installed deck's files are read again and checked against its manifest by
/// ``DeckVerifier`` on one thread (so slides still load). A run that finds the data folder's sync
/// lock taken is skipped and says so; it does not keep the lock while it reads (a `sync` started
/// meanwhile must not fail as busy). That is safe because an installed folder is never changed in
/// place: a sync writes a new folder, and deletes a replaced one only after the swap that also
/// deletes its `packageTrust` row, so a check racing a swap can only record its finding on a row
/// that no longer exists. A deck that differs is quarantined in its row, and serve's catalog
/// watcher withholds it.
struct TrustVerificationService: Service {
    var schedule: SyncSchedule
    var store: LibraryStore
    /// The config's `trust.rootFile`: the held keys document is read under the pinned root.
    var rootFile: String?
    var logger: Logger

    func run() async throws {
        var random = SystemRandomNumberGenerator()
        var delay = min(.seconds(30), schedule.interval)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let wait = delay
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                return
            }
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            _ = await cancelWhenGracefulShutdown { await runOnce() }
            delay = schedule.nextDelay(using: &random)
        }
    }

    /// One check of every installed deck; returns how many differ.
    @discardableResult
    func runOnce() async -> Int {
        let directory = store.directory
        do {
            // Taken and let go at once: only whether a sync runs now.
            try await BlockingIO.run { () throws(SyncError) in withExtendedLifetime(try SyncLock(file: SyncPaths(directory).lockFile)) {} }
        } catch {
            logger.info("trust verification skipped: \(error.description)")
            return 0
        }
        let trust = KioskTrustStore(directory: directory, rootFile: rootFile)
        let keys = try? trust.pinnedRoot().flatMap { root in try trust.heldKeys(root: root)?.body }
        let verifier = DeckVerifier(library: store, keys: keys, hasher: TreeHasher(threads: 1))
        let ids: [Int]
        do {
            ids = try await verifier.installedIds()
        } catch {
            logger.warning("trust verification: \(error.description)")
            return 0
        }
        var differing = 0
        for id in ids where !Task.isCancelled {
            do {
                let checked = try await verifier.verify(id: id)
                if checked.outcome.fails {
                    differing += 1
                    logger.error(
                        "trust verification: presentation \(id) quarantined",
                        metadata: ["files": "\(checked.difference)", "result": "\(checked.outcome.rawValue)"])
                }
            } catch {
                logger.warning("trust verification: presentation \(id): \(error.description)")
            }
        }
        logger.info("trust verification: \(ids.count) deck\(ids.count == 1 ? "" : "s") checked, \(differing) differ")
        return differing
    }
}
