import Foundation
import GRDB
import StoryBridge

/// Local operations on synced content that need no server: delete a presentation's files but
/// keep its metadata, and forget everything synced. Files are removed on the blocking pool.
package struct SyncMaintenance: Sendable {
    package let library: LibraryStore
    package let catalog: SyncCatalog
    package let paths: SyncPaths

    package init(library: LibraryStore) {
        self.library = library
        catalog = SyncCatalog(database: library.database)
        paths = SyncPaths(library.directory)
    }

    /// Deletes the installed files and partial downloads of a synced presentation; its catalog
    /// row stays (state `not downloaded`), so `sync --content ID` brings it back.
    package func removeContent(id: Int) async throws(SyncError) {
        guard let row = try await catalog.presentation(id: id) else { throw .unknownPresentation(id) }
        let folders = try await catalog.write { db in
            let folders = try MetadataSync.removeLibraryRow(db, id: id)
            try db.execute(
                sql: """
                    UPDATE syncPresentation SET installedRevision = NULL, installedPresentationRevision = NULL,
                      state = 'notDownloaded', lastError = NULL, updatedAt = ? WHERE id = ?
                    """,
                arguments: [Date(), row.id])
            return folders
        }
        await BlockingIO.run { [paths] in
            for folder in folders { try? FileManager.default.removeItem(at: paths.directory.presentations.appendingPathComponent(folder)) }
            PartialDownload.discardAll(presentationId: id, in: paths.downloads)
            ReadyTree.removeAll(presentationId: id, in: paths)
        }
    }

    /// Marks a synced presentation's content as gone after the library row was removed by hand.
    package func contentRemoved(id: Int) async throws(SyncError) {
        try await catalog.write { db in
            try db.execute(
                sql: """
                    UPDATE syncPresentation SET installedRevision = NULL, installedPresentationRevision = NULL,
                      state = 'notDownloaded', lastError = NULL, updatedAt = ? WHERE id = ?
                    """,
                arguments: [Date(), id])
        }
        await BlockingIO.run { [paths] in
            PartialDownload.discardAll(presentationId: id, in: paths.downloads)
            ReadyTree.removeAll(presentationId: id, in: paths)
        }
    }

    /// Forgets all synced content: the sync catalog, the synced presentations of the library
    /// with their files, and partial downloads. The login and hand-installed presentations stay.
    /// Returns how many presentations were forgotten.
    @discardableResult
    package func reset() async throws(SyncError) -> Int {
        let (count, folders) = try await catalog.write { db in
            var folders = try String.fetchAll(db, sql: "SELECT folder FROM presentation WHERE source LIKE 'sync:%'")
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncPresentation") ?? 0
            for id in try Int.fetchAll(db, sql: "SELECT DISTINCT presentationId FROM keptRevision WHERE source LIKE 'sync:%'") {
                folders += try KeptRevisions.forget(db, presentationId: id)
            }
            try db.execute(sql: "DELETE FROM presentation WHERE source LIKE 'sync:%'")
            try db.execute(sql: "DELETE FROM syncPresentation")
            try db.execute(sql: "DELETE FROM syncClient")
            return (count, folders)
        }
        await BlockingIO.run { [paths] in
            for folder in folders { try? FileManager.default.removeItem(at: paths.directory.presentations.appendingPathComponent(folder)) }
            try? FileManager.default.removeItem(at: paths.downloads)
            try? FileManager.default.removeItem(at: ReadyTree.folder(in: paths))
        }
        return count
    }
}
