import Foundation
import GRDB

/// The catalog writes of one metadata sync, applied in one transaction.
struct CatalogChange: Sendable {
    var clients: [RemoteClient]
    var listed: [Int: MetadataSync.ClientStub]
    var fetches: [Int: MetadataSync.Fetch]
    var existing: [Int: SyncedPresentation]
    var withdraw: [Int]
    var remove: [Int]

    /// Applies the change; returns the library folders to delete once it committed.
    func apply(_ db: Database, now: Date) throws -> [String] {
        for client in clients {
            try SyncedClient(id: client.id, name: client.name ?? "", shortDescription: client.shortDescription ?? "", syncedAt: now)
                .upsert(db)
        }
        var folders: [String] = []
        for id in remove {
            folders += try MetadataSync.removeLibraryRow(db, id: id)
            try db.execute(sql: "DELETE FROM syncPresentation WHERE id = ?", arguments: [id])
        }
        for id in withdraw {
            try db.execute(
                sql: "UPDATE syncPresentation SET state = 'withdrawn', withdrawnAt = ?, updatedAt = ? WHERE id = ?",
                arguments: [now, now, id])
        }
        for (id, entry) in listed.sorted(by: { $0.key < $1.key }) {
            var row = existing[id] ?? Self.newRow(id: id, entry: entry, now: now)
            row.clientId = entry.clientId
            row.listedRevision = entry.stub.revision
            row.skip = entry.stub.skip ?? false
            row.debug = entry.stub.debug ?? false
            row.lockout = entry.stub.lockout ?? false
            switch fetches[id] {
            case .fetched(let remote):
                try record(remote, into: &row, db: db, now: now)
            case .failed(let reason):
                row.state = .failed
                row.lastError = reason
                row.failedDuring = SyncedPresentation.FailureStage.metadata.rawValue
                row.updatedAt = now
                try row.upsert(db)
            case .absent, nil:
                try row.upsert(db)
            }
        }
        let listedClients = Set(clients.map(\.id))
        let allClients = try Int.fetchAll(db, sql: "SELECT id FROM syncClient")
        for client in allClients where !listedClients.contains(client) {
            // A client whose presentations are withdrawn but not removed stays until they go.
            let held = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncPresentation WHERE clientId = ?", arguments: [client]) ?? 0
            if held == 0 { try db.execute(sql: "DELETE FROM syncClient WHERE id = ?", arguments: [client]) }
        }
        return folders
    }

    /// Writes a fetched presentation object into its row, its media and slide stubs, and the
    /// library's name and descriptions of an installed copy.
    private func record(_ remote: RemotePresentation, into row: inout SyncedPresentation, db: Database, now: Date) throws {
        let id = row.id
        let previousPackage = (row.packageId, row.packageRevision)
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
        row.withdrawnAt = nil
        // A failed download of an unchanged package stays failed until it installs; a failed
        // fetch is cleared by this one.
        let keepsFailure =
            row.state == .failed && row.failedDuring == SyncedPresentation.FailureStage.content.rawValue
            && previousPackage == (row.packageId, row.packageRevision)
        if !keepsFailure {
            row.state = row.settledState
            row.lastError = nil
            row.failedDuring = nil
        }
        row.updatedAt = now
        try row.upsert(db)
        try db.execute(sql: "DELETE FROM syncMediaFile WHERE presentationId = ?", arguments: [id])
        for media in remote.mediaFiles ?? [] {
            try SyncedMediaFile(presentationId: id, id: media.id, revision: media.revision, fileSize: media.fileSize ?? 0).upsert(db)
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
    }

    static func newRow(id: Int, entry: MetadataSync.ClientStub, now: Date) -> SyncedPresentation {
        SyncedPresentation(
            id: id, clientId: entry.clientId, name: "", shortDescription: "", longDescription: "", sortOrder: 0,
            listedRevision: entry.stub.revision, fetchedRevision: nil, skip: false, debug: false, lockout: false,
            visibility: true, needConfirmation: false, mapEnabled: false, dependencies: "[]", packageId: nil,
            packageRevision: nil, packageBlobId: nil, packageSize: nil, installedRevision: nil,
            installedPresentationRevision: nil, state: .notDownloaded, lastError: nil, updatedAt: now, withdrawnAt: nil,
            failedDuring: nil, warning: nil, installedPackageId: nil)
    }
}
