import Foundation
import GRDB

extension LibraryStore {
    /// Serves the newest kept revision older than the served one again and pins it: one
    /// transaction that points the library row at the kept folder (no file is copied or
    /// downloaded), keeps the revision it replaces, updates the sync catalog's installed package,
    /// and writes a `rollback` history line. A running `serve` notices the swap like an update.
    @discardableResult
    package func rollback(id: Int, at: Date = Date()) throws(RollbackError) -> RollbackOutcome {
        do {
            return try database.writeSeparately { db throws -> RollbackOutcome in
                guard let served = try KeptRevisions.keepServed(db, presentationId: id, at: at) else {
                    throw RollbackError.notInstalled(id)
                }
                guard
                    let earlier = try KeptRevisions.all(db, presentationId: id)
                        .filter({ $0.folder != served.folder && $0.orderingRevision < served.orderingRevision })
                        .max(by: { $0.orderingRevision < $1.orderingRevision })
                else { throw RollbackError.noEarlierRevision(id) }
                try KeptRevisions.serve(db, earlier)
                try db.execute(
                    sql: """
                        UPDATE syncPresentation SET installedRevision = ?, installedPackageId = ?, installedPresentationRevision = ?,
                          state = CASE WHEN packageRevision IS ? THEN 'ready' ELSE 'updateAvailable' END,
                          lastError = NULL, failedDuring = NULL, updatedAt = ?
                        WHERE id = ?
                        """,
                    arguments: [earlier.packageRevision, earlier.packageId, earlier.revision, earlier.packageRevision, at, id])
                let previous = try RevisionPin.fetchOne(db, key: id)
                try RevisionPin(
                    presentationId: id, revision: earlier.revision, packageRevision: earlier.packageRevision,
                    rolledBackFromRevision: previous?.rolledBackFromRevision ?? served.revision,
                    rolledBackFromPackageRevision: previous?.rolledBackFromPackageRevision ?? served.packageRevision, pinnedAt: at
                ).save(db)
                try RevisionHistory.record(
                    db, presentationId: id, event: .rollback, how: .rollback, revision: earlier.revision,
                    packageRevision: earlier.packageRevision, bytes: 0, at: at)
                return RollbackOutcome(
                    presentationId: id, fromRevision: served.revision, fromPackageRevision: served.packageRevision,
                    toRevision: earlier.revision, toPackageRevision: earlier.packageRevision)
            }
        } catch let error as RollbackError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// The kept revision ``rollback(id:at:)`` would serve now, read without changing anything
    /// (`nil` when the presentation is not installed or has no earlier revision kept).
    package func rollbackTarget(id: Int) throws -> KeptRevision? {
        try database.pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT folder, revision FROM presentation WHERE id = ?", arguments: [id]) else {
                return nil
            }
            let servedFolder: String = row["folder"]
            let installed = try Int.fetchOne(db, sql: "SELECT installedRevision FROM syncPresentation WHERE id = ?", arguments: [id])
            let servedOrdering = installed ?? row["revision"]
            return try KeptRevisions.all(db, presentationId: id)
                .filter { $0.folder != servedFolder && $0.orderingRevision < servedOrdering }
                .max { $0.orderingRevision < $1.orderingRevision }
        }
    }

    /// Lifts the pin of a rolled-back presentation: the next sync installs what the service offers.
    package func unpin(id: Int) throws(RollbackError) {
        do {
            try database.writeSeparately { db throws in
                guard try RevisionPin.deleteOne(db, key: id) else { throw RollbackError.notPinned(id) }
            }
        } catch let error as RollbackError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// The pin of a presentation, if it is pinned.
    package func pin(id: Int) throws -> RevisionPin? {
        try database.pool.read { db in try RevisionPin.fetchOne(db, key: id) }
    }

    /// The kept revisions of a presentation, newest first.
    package func keptRevisions(id: Int) throws -> [KeptRevision] {
        try database.pool.read { db in try KeptRevisions.all(db, presentationId: id) }
    }

    /// The history, oldest first; one presentation's when `id` is given.
    package func history(id: Int? = nil) throws -> [RevisionHistoryEntry] {
        try database.pool.read { db in try RevisionHistory.entries(db, presentationId: id) }
    }

    /// The bytes delta updates saved, per presentation (``RevisionHistory/bytesSavedByDelta(_:)``).
    package func bytesSavedByDelta() throws -> [Int: Int64] {
        try database.pool.read { db in try RevisionHistory.bytesSavedByDelta(db) }
    }
}
