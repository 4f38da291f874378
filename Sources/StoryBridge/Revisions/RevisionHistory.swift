import Foundation
import GRDB

/// One line of a presentation's history (`revisionHistory`): an install, update, rollback or
/// removal, when it happened, the revision it left served and the bytes it transferred.
public struct RevisionHistoryEntry: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "revisionHistory"
    public var id: Int64?
    public var at: Date
    public var presentationId: Int
    /// ``RevisionHistory/Event``'s raw value.
    public var event: String
    /// ``RevisionHistory/How``'s raw value.
    public var how: String
    /// The library revision served afterwards (nil for a removal).
    public var revision: Int?
    /// The content package revision served afterwards, for a synced presentation.
    public var packageRevision: Int?
    /// Bytes received over the network for this change.
    public var bytes: Int64
    /// The size of the package a download installed (nil for other changes, and for lines
    /// written before migration `v12-history-package-size`).
    public var packageSize: Int64?

    /// What a delta update did not transfer: the package's size less the bytes fetched (0 for
    /// any other line, or when the package size was not recorded).
    public var bytesSaved: Int64 {
        guard how == RevisionHistory.How.delta.rawValue, let packageSize else { return 0 }
        return max(0, packageSize - bytes)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// Records and reads the history of installed revisions.
///
/// Every change of what the library serves writes one line in the same transaction as the change,
/// so the history never claims a change that did not happen. `LibraryStore.install` records its
/// own line (``LibraryStore/InstallOptions/how`` and `bytesTransferred` say how); code that
/// changes the served revision in a transaction of its own calls ``record(_:presentationId:event:how:revision:packageRevision:bytes:packageSize:at:)``.
public enum RevisionHistory {
    /// What changed.
    public enum Event: String, Sendable, CaseIterable {
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
    public enum How: String, Sendable, CaseIterable {
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
    public static func record(
        _ db: Database, presentationId: Int, event: Event, how: How, revision: Int?, packageRevision: Int?, bytes: Int64,
        packageSize: Int64? = nil, at: Date = Date()
    ) throws {
        var entry = RevisionHistoryEntry(
            id: nil, at: at, presentationId: presentationId, event: event.rawValue, how: how.rawValue, revision: revision,
            packageRevision: packageRevision, bytes: bytes, packageSize: packageSize)
        try entry.insert(db)
    }

    /// The history, oldest first; one presentation's when `presentationId` is given.
    public static func entries(_ db: Database, presentationId: Int? = nil) throws -> [RevisionHistoryEntry] {
        if let presentationId {
            return try RevisionHistoryEntry.fetchAll(
                db, sql: "SELECT * FROM revisionHistory WHERE presentationId = ? ORDER BY at, id", arguments: [presentationId])
        }
        return try RevisionHistoryEntry.fetchAll(db, sql: "SELECT * FROM revisionHistory ORDER BY at, id")
    }

    /// The bytes delta updates saved, per presentation: the sum over its delta lines of the
    /// package size less the bytes fetched. Lines without a recorded package size count nothing.
    public static func bytesSavedByDelta(_ db: Database) throws -> [Int: Int64] {
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
