import Foundation
import GRDB
import Logging
import StoryBridge

/// What a metadata sync changed.
public struct MetadataSyncReport: Sendable, Hashable {
    public var clients = 0
    /// Presentations seen for the first time.
    public var added: [Int] = []
    /// Presentations whose object was fetched again because their revision changed.
    public var updated: [Int] = []
    /// Presentations gone from the service, removed here with their files.
    public var removed: [Int] = []
    /// Presentations marked `skip` (not fetched, not downloaded).
    public var skipped: [Int] = []
    /// Presentations whose revision had not changed (not fetched).
    public var unchanged = 0
}

/// Brings the sync catalog up to date with the service: the client list, then (bounded
/// parallelism) the presentation objects whose revision changed, then one transaction that
/// inserts, updates and deletes. Presentations that vanished lose their library row in that
/// transaction and their files right after it.
public struct MetadataSync: Sendable {
    public let api: ContentAPIClient
    public let catalog: SyncCatalog
    public let paths: SyncPaths
    public var parallelism: Int

    public init(api: ContentAPIClient, catalog: SyncCatalog, paths: SyncPaths, parallelism: Int = 4) {
        self.api = api
        self.catalog = catalog
        self.paths = paths
        self.parallelism = parallelism
    }

    public func run(now: Date = Date()) async throws(SyncError) -> MetadataSyncReport {
        let clients = try await api.clients()
        var listed: [Int: (clientId: Int, stub: RemotePresentationStub)] = [:]
        for client in clients {
            for stub in client.presentations ?? [] where listed[stub.id] == nil {
                listed[stub.id] = (client.id, stub)
            }
        }
        let existing = Dictionary(uniqueKeysWithValues: try await catalog.presentations().map { ($0.id, $0) })
        var report = MetadataSyncReport()
        report.clients = clients.count
        let toFetch = listed.values.filter { entry in
            if entry.stub.skip == true { return false }
            return existing[entry.stub.id]?.fetchedRevision != entry.stub.revision
        }.map(\.stub.id).sorted()
        let api = self.api
        let fetched = try await boundedMap(toFetch, limit: parallelism) { (id: Int) async throws(SyncError) -> RemotePresentation in
            try await api.presentation(id: id)
        }
        let fetchedById = Dictionary(fetched.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let vanished = existing.keys.filter { listed[$0] == nil }.sorted()
        for id in listed.keys.sorted() {
            if listed[id]!.stub.skip == true {
                report.skipped.append(id)
            } else if existing[id] == nil {
                report.added.append(id)
            } else if fetchedById[id] != nil {
                report.updated.append(id)
            } else {
                report.unchanged += 1
            }
        }
        report.removed = vanished
        let listedSnapshot = listed.mapValues { ClientStub(clientId: $0.clientId, stub: $0.stub) }
        let removedFolders = try await catalog.write { db in
            try Self.apply(
                db, clients: clients, listed: listedSnapshot, fetched: fetchedById, existing: existing, vanished: vanished,
                now: now)
        }
        for folder in removedFolders {
            try? FileManager.default.removeItem(at: catalog.libraryFolder(folder, paths: paths))
        }
        for id in vanished { PartialDownload.discardAll(presentationId: id, in: paths.downloads) }
        return report
    }

    struct ClientStub: Sendable {
        var clientId: Int
        var stub: RemotePresentationStub
    }

    /// The one transaction; returns the library folders to delete once it committed.
    static func apply(
        _ db: Database, clients: [RemoteClient], listed: [Int: ClientStub], fetched: [Int: RemotePresentation],
        existing: [Int: SyncedPresentation], vanished: [Int], now: Date
    ) throws -> [String] {
        for client in clients {
            try SyncedClient(id: client.id, name: client.name ?? "", shortDescription: client.shortDescription ?? "", syncedAt: now)
                .upsert(db)
        }
        var folders: [String] = []
        for id in vanished {
            folders += try removeLibraryRow(db, id: id)
            try db.execute(sql: "DELETE FROM syncPresentation WHERE id = ?", arguments: [id])
        }
        for (id, entry) in listed.sorted(by: { $0.key < $1.key }) {
            var row =
                existing[id]
                ?? SyncedPresentation(
                    id: id, clientId: entry.clientId, name: "", shortDescription: "", longDescription: "", sortOrder: 0,
                    listedRevision: entry.stub.revision, fetchedRevision: nil, skip: false, debug: false, lockout: false,
                    visibility: true, needConfirmation: false, mapEnabled: false, dependencies: "[]", packageId: nil,
                    packageRevision: nil, packageBlobId: nil, packageSize: nil, installedRevision: nil,
                    installedPresentationRevision: nil, state: .notDownloaded, lastError: nil, updatedAt: now)
            row.clientId = entry.clientId
            row.listedRevision = entry.stub.revision
            row.skip = entry.stub.skip ?? false
            row.debug = entry.stub.debug ?? false
            row.lockout = entry.stub.lockout ?? false
            if let remote = fetched[id] {
                let previousPackage = row.packageRevision
                row.fetchedRevision = remote.revision
                row.name = remote.name ?? row.name
                row.shortDescription = remote.shortDescription ?? ""
                row.longDescription = remote.longDescription ?? ""
                row.sortOrder = remote.order ?? 0
                row.visibility = remote.visibility ?? true
                row.needConfirmation = remote.needConfirmation ?? false
                row.mapEnabled = remote.mapEnabled ?? false
                let dependencies = (remote.presentations ?? []).map(\.value)
                row.dependencies = String(decoding: try JSONEncoder().encode(dependencies), as: UTF8.self)
                row.packageId = remote.sourcesFolder?.id
                row.packageRevision = remote.sourcesFolder?.revision
                row.packageBlobId = remote.sourcesFolder?.blobId
                row.packageSize = remote.sourcesFolder?.fileSize
                let keepsFailure = row.state == .failed && previousPackage == row.packageRevision
                if !keepsFailure {
                    row.state = PresentationState.derived(installed: row.installedRevision, offered: row.packageRevision)
                    row.lastError = nil
                }
                row.updatedAt = now
                try row.upsert(db)
                try db.execute(sql: "DELETE FROM syncMediaFile WHERE presentationId = ?", arguments: [id])
                for media in remote.mediaFiles ?? [] {
                    try SyncedMediaFile(presentationId: id, id: media.id, revision: media.revision, fileSize: media.fileSize ?? 0)
                        .upsert(db)
                }
                try db.execute(sql: "DELETE FROM syncSlide WHERE presentationId = ?", arguments: [id])
                for slide in remote.slides ?? [] {
                    try SyncedSlide(presentationId: id, id: slide.id, revision: slide.revision).upsert(db)
                }
                // The library shows the service's name, descriptions and order of an installed presentation.
                try db.execute(
                    sql: """
                        UPDATE presentation SET name = ?, shortDescription = ?, longDescription = ?, sortOrder = ?
                        WHERE id = ? AND source LIKE 'sync:%'
                        """,
                    arguments: [row.name, row.shortDescription, row.longDescription, row.sortOrder, id])
            } else {
                try row.upsert(db)
            }
        }
        let listedClients = Set(clients.map(\.id))
        let allClients = try Int.fetchAll(db, sql: "SELECT id FROM syncClient")
        for client in allClients where !listedClients.contains(client) {
            try db.execute(sql: "DELETE FROM syncClient WHERE id = ?", arguments: [client])
        }
        return folders
    }

    /// Deletes the library row of a synced presentation (not one installed by hand); returns its folder.
    static func removeLibraryRow(_ db: Database, id: Int) throws -> [String] {
        guard
            let folder = try String.fetchOne(
                db, sql: "SELECT folder FROM presentation WHERE id = ? AND source LIKE 'sync:%'", arguments: [id])
        else { return [] }
        try db.execute(sql: "DELETE FROM presentation WHERE id = ?", arguments: [id])
        return [folder]
    }
}

extension SyncCatalog {
    func libraryFolder(_ name: String, paths: SyncPaths) -> URL {
        paths.directory.presentations.appendingPathComponent(name)
    }
}
