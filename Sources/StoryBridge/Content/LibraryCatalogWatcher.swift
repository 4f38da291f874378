import Foundation
import GRDB
import Logging

/// Keeps a running host in step with the library's catalog when it serves the library: a
/// presentation installed or updated by another process (`storybridge sync --content`,
/// `storybridge install`) is read in and its viewers reloaded; one removed leaves the host's
/// library. Polls the `presentation` table's (id, revision, folder), with the platform flags the
/// sync catalog holds for it, every ``interval`` of the host's clock, which is cheap, needs no
/// cross-process notification, and sees every writer. A sync that only changes flags (the service
/// blocked a deck, hid it, or asks for confirmation now) reaches the host the same way: a deck
/// blocked while shown reloads its viewers onto the blocked page. So does a quarantine that
/// `storybridge verify` records in the served folder's `packageTrust` row (the withheld page).
package struct LibraryCatalogWatcher: Sendable {
    /// The library's catalog.
    package let store: LibraryStore
    /// How long to wait between looks at the catalog.
    package let interval: Duration

    /// One row's identity: a new folder means a new install (a revision swap or a reinstall); new
    /// flags, a change of what the content service allows.
    struct Stamp: Hashable, Sendable {
        let revision: Int
        let folder: String
        let flags: PresentationFlags

        /// Whether `newer` differs from this stamp only in flags that change no slide a viewer
        /// shows (`visibility`, `needConfirmation`): the same files, and not blocked or unblocked.
        func changesOnlyWhatIsNotShown(_ newer: Stamp) -> Bool {
            revision == newer.revision && folder == newer.folder && flags.isLockedOut == newer.flags.isLockedOut
                && flags.quarantine == newer.flags.quarantine
        }
    }

    /// Follows `store`'s catalog, looking every `interval`.
    package init(store: LibraryStore, interval: Duration = .seconds(1)) {
        self.store = store
        self.interval = interval
    }

    /// Watches until the task is cancelled, waiting on the host's clock between looks.
    package func run(host: StoryBridgeHost) async {
        var known = await readStamps(host: host) ?? [:]
        var failing = false
        while !Task.isCancelled {
            do { try await host.clock.sleep(for: interval) } catch { return }
            guard let now = await readStamps(host: host, failing: &failing), now != known else { continue }
            for (id, stamp) in now.sorted(by: { $0.key < $1.key }) where known[id] != stamp {
                do {
                    let store = self.store
                    guard let entry = try await store.database.read({ db in try store.entry(id: id, db: db) }) else { continue }
                    if let before = known[id], before.changesOnlyWhatIsNotShown(stamp) {
                        // Listed or asking on close now: nothing a viewer shows changed, so no reload.
                        let listed = stamp.flags.isListed ? "listed" : "hidden"
                        let close = stamp.flags.needsConfirmation ? "asks on close" : "closes without asking"
                        host.logger.info("library: presentation \(id) is \(listed), \(close)")
                        host.library.add(entry.presentation)
                        continue
                    }
                    host.logger.info(
                        "library: presentation \(id) \(known[id] == nil ? "added" : "updated") (revision \(stamp.revision))")
                    // A new revision shows from the viewer's next slide on, never mid-slide; a lockout
                    // (or its end) reloads at once.
                    let lockoutChanged = known[id].map { $0.flags.isWithheld != stamp.flags.isWithheld } ?? false
                    if let reason = stamp.flags.quarantine, known[id]?.flags.quarantine == nil {
                        host.logger.error("library: presentation \(id) quarantined, its slides withheld: \(reason)")
                        await host.endSessions(quarantined: id)
                    }
                    await host.presentationChanged(entry.presentation, files: [], reload: lockoutChanged ? .now : .atNextSlide)
                } catch {
                    host.logger.warning("library: cannot read presentation \(id)", metadata: ["error": "\(error)"])
                    continue
                }
            }
            for id in known.keys where now[id] == nil {
                host.logger.info("library: presentation \(id) removed")
                host.library.remove(id: id)
            }
            known = now
        }
    }

    /// The catalog's stamps, or `nil` when it cannot be read; a failure is logged once until the
    /// catalog can be read again.
    private func readStamps(host: StoryBridgeHost, failing: inout Bool) async -> [Int: Stamp]? {
        do {
            let stamps = try await stamps()
            if failing { host.logger.notice("library: the catalog can be read again") }
            failing = false
            return stamps
        } catch {
            if !failing { host.logger.warning("library: cannot read the catalog", metadata: ["error": "\(error)"]) }
            failing = true
            return nil
        }
    }

    private func readStamps(host: StoryBridgeHost) async -> [Int: Stamp]? {
        var failing = false
        return await readStamps(host: host, failing: &failing)
    }

    func stamps() async throws -> [Int: Stamp] {
        try await store.database.read { db in
            var stamps: [Int: Stamp] = [:]
            let sql = """
                SELECT presentation.id, presentation.revision, presentation.folder, \(SyncCatalogFacts.flagColumns),
                  \(SyncCatalogFacts.quarantineColumns)
                FROM presentation \(SyncCatalogFacts.joinOnSyncedRow) \(SyncCatalogFacts.joinOnTrustRow)
                WHERE \(LibraryStore.servedCondition)
                """
            for row in try Row.fetchAll(db, sql: sql) {
                var flags = SyncCatalogFacts.flags(from: row)
                flags.quarantine = SyncCatalogFacts.quarantine(from: row)
                stamps[row["id"]] = Stamp(revision: row["revision"], folder: row["folder"], flags: flags)
            }
            return stamps
        }
    }
}
