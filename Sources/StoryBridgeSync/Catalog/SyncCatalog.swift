import Foundation
import GRDB
import StoryBridge

/// Reads and writes the sync tables.
package struct SyncCatalog: Sendable {
    package let database: StoryBridgeDatabase

    package init(database: StoryBridgeDatabase) {
        self.database = database
    }

    /// Every synced presentation, by client, order, id.
    package func presentations() async throws(SyncError) -> [SyncedPresentation] {
        try await read { db in
            try SyncedPresentation.fetchAll(db, sql: "SELECT * FROM syncPresentation ORDER BY clientId, sortOrder, id")
        }
    }

    /// One synced presentation.
    package func presentation(id: Int) async throws(SyncError) -> SyncedPresentation? {
        try await read { db in try SyncedPresentation.fetchOne(db, key: id) }
    }

    /// The clients.
    package func clients() async throws(SyncError) -> [SyncedClient] {
        try await read { db in try SyncedClient.fetchAll(db, sql: "SELECT * FROM syncClient ORDER BY name, id") }
    }

    /// Media stubs of a presentation.
    package func mediaFiles(presentationId: Int) async throws(SyncError) -> [SyncedMediaFile] {
        try await read { db in
            try SyncedMediaFile.fetchAll(
                db, sql: "SELECT * FROM syncMediaFile WHERE presentationId = ? ORDER BY id", arguments: [presentationId])
        }
    }

    /// Slide stubs of a presentation.
    package func slides(presentationId: Int) async throws(SyncError) -> [SyncedSlide] {
        try await read { db in
            try SyncedSlide.fetchAll(db, sql: "SELECT * FROM syncSlide WHERE presentationId = ? ORDER BY id", arguments: [presentationId])
        }
    }

    /// Sets a presentation's state and last error (a failure of a download or install).
    func setState(_ id: Int, _ state: PresentationState, error: String? = nil) async throws(SyncError) {
        let stage = error == nil ? nil : SyncedPresentation.FailureStage.content.rawValue
        try await write { db in
            try db.execute(
                sql: "UPDATE syncPresentation SET state = ?, lastError = ?, failedDuring = ?, updatedAt = ? WHERE id = ?",
                arguments: [state.rawValue, error, stage, Date(), id])
        }
    }

    /// Records that the service has no package for a presentation (204 on its content package).
    func recordNoPackage(_ id: Int) async throws(SyncError) {
        try await write { db in
            guard var row = try SyncedPresentation.fetchOne(db, key: id) else { return }
            row.packageId = nil
            row.packageRevision = nil
            row.packageBlobId = nil
            row.packageSize = nil
            row.state = row.settledState
            row.lastError = nil
            row.failedDuring = nil
            row.updatedAt = Date()
            try row.update(db)
        }
    }

    /// Rows left `downloading` by a run that died are put back to what their files say.
    func settleInterruptedDownloads() async throws(SyncError) {
        try await write { db in
            let stale = try SyncedPresentation.fetchAll(db, sql: "SELECT * FROM syncPresentation WHERE state = 'downloading'")
            for var row in stale {
                row.state = row.settledState
                try row.update(db)
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        do { return try await database.pool.read(body) } catch { throw Self.storageError(error) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(SyncError) -> T {
        do { return try await database.writeSeparately(body) } catch { throw Self.storageError(error) }
    }

    static func storageError(_ error: any Error) -> SyncError {
        if let sync = error as? SyncError { return sync }
        if let database = error as? DatabaseError {
            return .storage("database: \(database.message ?? "SQLite error \(database.resultCode.rawValue)")")
        }
        if error is CancellationError { return .interrupted }
        return .storage("database access failed")
    }
}
