import Foundation
import GRDB

/// One line of a presentation's history (`revisionHistory`): an install, update, rollback or
/// removal, when it happened, the revision it left served and the bytes it transferred.
package struct RevisionHistoryEntry: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    package static let databaseTableName = "revisionHistory"
    package var id: Int64?
    package var at: Date
    package var presentationId: Int
    /// ``RevisionHistory/Event``'s raw value.
    package var event: String
    /// ``RevisionHistory/How``'s raw value.
    package var how: String
    /// The library revision served afterwards (nil for a removal).
    package var revision: Int?
    /// The content package revision served afterwards, for a synced presentation.
    package var packageRevision: Int?
    /// Bytes received over the network for this change.
    package var bytes: Int64
    /// The size of the package a download installed (nil for other changes, and for lines
    /// written before migration `v12-history-package-size`).
    package var packageSize: Int64?

    /// What a delta update did not transfer: the package's size less the bytes fetched (0 for
    /// any other line, or when the package size was not recorded).
    package var bytesSaved: Int64 {
        guard how == RevisionHistory.How.delta.rawValue, let packageSize else { return 0 }
        return max(0, packageSize - bytes)
    }

    package mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// Records and reads the history of installed revisions.
///
/// Every change of what the library serves writes one line in the same transaction as the change,
/// so the history never claims a change that did not happen. `LibraryStore.install` records its
/// own line (``LibraryStore/InstallOptions/how`` and `bytesTransferred` say how); code that
/// changes the served revision in a transaction of its own calls ``record(_:presentationId:event:how:revision:packageRevision:bytes:packageSize:at:)``.
package enum RevisionHistory {
    /// What changed.
    package enum Event: String, Sendable, CaseIterable {
        /// The first revision of a presentation was installed.
        case install
        /// A new revision replaced the served one.
        case update
        /// A kept earlier revision is served again.
        case rollback
        /// The presentation was removed.
        case removal
    }

    /// How the served revision came to be.
    package enum How: String, Sendable, CaseIterable {
        /// The whole package was downloaded.
        case full
        /// Only the changed entries of the package were downloaded.
        case delta
        /// A kept revision was served again; nothing was transferred.
        case rollback
        /// The presentation's files were removed.
        case removal
        /// Unpacked from a zip on this machine (`storybridge install`); nothing was transferred.
        case local
    }

    /// Writes one history line inside the caller's transaction.
    package static func record(
        _ db: Database, presentationId: Int, event: Event, how: How, revision: Int?, packageRevision: Int?, bytes: Int64,
        packageSize: Int64? = nil, at: Date = Date()
    ) throws {
        var entry = RevisionHistoryEntry(
            id: nil, at: at, presentationId: presentationId, event: event.rawValue, how: how.rawValue, revision: revision,
            packageRevision: packageRevision, bytes: bytes, packageSize: packageSize)
        try entry.insert(db)
    }

    /// The history, oldest first; one presentation's when `presentationId` is given.
    package static func entries(_ db: Database, presentationId: Int? = nil) throws -> [RevisionHistoryEntry] {
        if let presentationId {
            return try RevisionHistoryEntry.fetchAll(
                db, sql: "SELECT * FROM revisionHistory WHERE presentationId = ? ORDER BY at, id", arguments: [presentationId])
        }
        return try RevisionHistoryEntry.fetchAll(db, sql: "SELECT * FROM revisionHistory ORDER BY at, id")
    }

    /// The bytes delta updates saved, per presentation: the sum over its delta lines of the
    /// package size less the bytes fetched. Lines without a recorded package size count nothing.
    package static func bytesSavedByDelta(_ db: Database) throws -> [Int: Int64] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT presentationId, SUM(MAX(0, packageSize - bytes)) AS saved FROM revisionHistory
                WHERE how = ? AND packageSize IS NOT NULL GROUP BY presentationId
                """, arguments: [How.delta.rawValue])
        var saved: [Int: Int64] = [:]
        for row in rows { saved[row["presentationId"]] = row["saved"] }
        return saved
    }
}
