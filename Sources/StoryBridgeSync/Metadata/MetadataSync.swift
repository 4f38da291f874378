import Foundation
import GRDB
import Logging
import StoryBridge

/// Brings the sync catalog up to date with the service: the client list, then every listed
/// presentation object (bounded parallelism; the package's own id and revision can change under
/// an unchanged presentation revision, so none is skipped), then one transaction that inserts,
/// updates, withdraws and removes.
///
/// A presentation that fails to fetch (403, a malformed reply) is marked `failed (reason)` and
/// the run goes on. One gone from the service (no longer listed, or answering 204/404) is
/// withdrawn first (off the launcher, files kept) and removed only when it is still gone after
/// ``RemovalPolicy/grace`` or with ``RemovalPolicy/prune``; see ``RemovalPolicy`` for the guard
/// against a transient empty list.
struct MetadataSync: Sendable {
    let api: ContentAPIClient
    let catalog: SyncCatalog
    let paths: SyncPaths
    var parallelism: Int
    var removals: RemovalPolicy

    init(
        api: ContentAPIClient, catalog: SyncCatalog, paths: SyncPaths, parallelism: Int = 4, removals: RemovalPolicy = RemovalPolicy()
    ) {
        self.api = api
        self.catalog = catalog
        self.paths = paths
        self.parallelism = parallelism
        self.removals = removals
    }

    /// What one presentation fetch gave.
    enum Fetch: Sendable {
        case fetched(RemotePresentation)
        /// 204 or 404: the service has no such presentation (any more).
        case absent
        /// A failure of this presentation alone (403, an unexpected status, a malformed reply).
        case failed(String)
    }

    func run(now: Date = Date()) async throws(SyncError) -> MetadataSyncReport {
        let clients = try await PhaseTiming.measure("client list request") { () async throws(SyncError) in try await self.api.clients() }
        var listed: [Int: ClientStub] = [:]
        for client in clients {
            for stub in client.presentations ?? [] where listed[stub.id] == nil {
                listed[stub.id] = ClientStub(clientId: client.id, stub: stub)
            }
        }
        let existing = Dictionary(uniqueKeysWithValues: try await catalog.presentations().map { ($0.id, $0) })
        let toFetch = listed.values.filter { $0.stub.skip != true }.map(\.stub.id).sorted()
        let api = self.api
        let fetchesBegan = PhaseTiming.begin()
        let results = try await boundedMap(toFetch, limit: parallelism) { (id: Int) async throws(SyncError) -> (Int, Fetch) in
            do throws(SyncError) {
                guard let presentation = try await api.presentation(id: id) else { return (id, .absent) }
                return (id, .fetched(presentation))
            } catch {
                guard error.concernsOnePresentation else { throw error }
                return (id, .failed(error.description))
            }
        }
        PhaseTiming.record("\(toFetch.count) presentation requests", since: fetchesBegan)
        let fetches = Dictionary(results, uniquingKeysWith: { _, last in last })
        let absent = Set(fetches.compactMap { id, fetch in if case .absent = fetch { return id } else { return nil } })
        for id in absent { listed[id] = nil }

        var report = MetadataSyncReport()
        report.clients = clients.count
        report.fetched = toFetch.count
        let plan = RemovalPlan(existing: existing, listedIds: Set(listed.keys), policy: removals, now: now)
        report.withdrawn = plan.withdraw
        report.removed = plan.remove
        report.heldBack = plan.heldBack
        for id in listed.keys.sorted() {
            let entry = listed[id]!
            if entry.stub.skip == true {
                report.skipped.append(id)
                continue
            }
            switch fetches[id] {
            case .failed(let reason): report.failed.append(.init(id: id, reason: reason))
            case .fetched(let remote):
                guard let row = existing[id] else {
                    report.added.append(id)
                    continue
                }
                if row.state == .withdrawn { report.restored.append(id) }
                if row.fetchedRevision != remote.revision || row.packageRevision != remote.sourcesFolder?.revision
                    || row.packageId != remote.sourcesFolder?.id
                {
                    report.updated.append(id)
                } else {
                    report.unchanged += 1
                }
            case .absent, nil: break
            }
        }
        let snapshot = CatalogChange(
            clients: clients, listed: listed, fetches: fetches, existing: existing, withdraw: plan.withdraw, remove: plan.remove)
        let removedFolders = try await PhaseTiming.measure("catalog written") { () async throws(SyncError) in
            try await catalog.write { db in try snapshot.apply(db, now: now) }
        }
        let (folders, removed) = (removedFolders.map { catalog.libraryFolder($0, paths: paths) }, plan.remove)
        await BlockingIO.run { [paths] in
            for folder in folders { try? FileManager.default.removeItem(at: folder) }
            for id in removed {
                PartialDownload.discardAll(presentationId: id, in: paths.downloads)
                ReadyTree.removeAll(presentationId: id, in: paths)
            }
        }
        return report
    }

    struct ClientStub: Sendable {
        var clientId: Int
        var stub: RemotePresentationStub
    }

    /// Deletes the library row of a synced presentation (not one installed by hand) with its kept
    /// revisions, recording the removal; returns their folders.
    static func removeLibraryRow(_ db: Database, id: Int) throws -> [String] {
        guard
            let folder = try String.fetchOne(
                db, sql: "SELECT folder FROM presentation WHERE id = ? AND source LIKE 'sync:%'", arguments: [id])
        else { return [] }
        try db.execute(sql: "DELETE FROM presentation WHERE id = ?", arguments: [id])
        try RevisionHistory.record(db, presentationId: id, event: .removal, how: .removal, revision: nil, packageRevision: nil, bytes: 0)
        return [folder] + (try KeptRevisions.forget(db, presentationId: id))
    }
}

extension SyncError {
    /// Whether the failure belongs to one presentation's fetch (the run goes on without it) rather
    /// than to the whole run (the network, the session, local storage, an interruption).
    var concernsOnePresentation: Bool {
        kind == .server || kind == .notAllowed
    }
}

extension SyncCatalog {
    func libraryFolder(_ name: String, paths: SyncPaths) -> URL {
        paths.directory.presentations.appendingPathComponent(name)
    }
}
