import Foundation
import GRDB

/// One served presentation's revisions as the inspector shows them: the served one, the kept
/// ones a rollback can go back to, and the pin of an earlier rollback.
package struct RevisionOverview: Sendable, Hashable {
    package var presentationId: Int
    package var name: String
    /// The served library revision, and package revision for a synced presentation.
    package var revision: Int
    package var packageRevision: Int?
    /// Kept revisions on disk, newest first.
    package var kept: [KeptRevision]
    package var pin: RevisionPin?

    /// Whether `rollback` has somewhere to go: a kept revision older than the served one (the
    /// same rule as ``LibraryStore/rollback(id:at:)``).
    package var canRollBack: Bool {
        let served = packageRevision ?? revision
        return kept.contains { $0.orderingRevision < served }
    }
}

extension LibraryStore {
    /// The revisions of every served presentation, in the library's order.
    package func revisionOverview() throws -> [RevisionOverview] {
        try database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT presentation.id, presentation.name, presentation.revision, syncPresentation.installedRevision
                    FROM presentation LEFT JOIN syncPresentation ON syncPresentation.id = presentation.id
                    WHERE \(Self.servedCondition) ORDER BY presentation.sortOrder, presentation.id
                    """)
            let pins = try RevisionPin.all(db)
            return try rows.map { row in
                let id: Int = row["id"]
                return RevisionOverview(
                    presentationId: id, name: row["name"], revision: row["revision"], packageRevision: row["installedRevision"],
                    kept: try KeptRevisions.all(db, presentationId: id), pin: pins[id])
            }
        }
    }
}
