import Foundation
import GRDB

/// An earlier revision of a presentation kept on disk (`keptRevision`) with the catalog facts it
/// was served with, so that a rollback only points the library row at it again.
package struct KeptRevision: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "keptRevision"
    /// The folder under `presentations/` that holds its files.
    package var folder: String
    package var presentationId: Int
    /// The library revision it had.
    package var revision: Int
    /// The content package revision and package id, for a synced presentation.
    package var packageRevision: Int?
    package var packageId: Int?
    package var name: String
    package var shortDescription: String
    package var longDescription: String
    package var sortOrder: Int
    package var sizeBytes: Int64
    package var fileCount: Int
    package var source: String
    package var installedAt: Date
    /// The `slide` rows, as JSON (``StoredSlide``).
    package var slides: String
    /// The `mediaFile` rows, as JSON (``StoredMediaFile``).
    package var mediaFiles: String
    /// When it stopped being the served revision.
    package var keptAt: Date
    /// The dialect it was served as (its folders are read by that dialect's rules).
    package var dialect: DialectName = .storyclm

    /// The number that orders revisions of one presentation: the package revision when synced,
    /// else the library revision.
    var orderingRevision: Int { packageRevision ?? revision }

    struct StoredSlide: Codable {
        var name: String
        var title: String?
        var swipeNext: String?
        var swipePrevious: String?
        var links: String
        /// Its place in the presentation's order (absent in revisions kept before v17: name order).
        var position: Int?
    }

    struct StoredMediaFile: Codable {
        var fileName: String
        var title: String
    }
}

/// The kept revisions of the library: keeping the replaced one, pruning beyond a count, and
/// forgetting them with their presentation.
package enum KeptRevisions {
    /// Snapshots the served revision of `presentationId` (its library row, slides and media
    /// files, and the installed package of the sync catalog) as a kept revision. Returns nil when
    /// the presentation is not installed.
    @discardableResult
    static func keepServed(_ db: Database, presentationId: Int, at: Date = Date()) throws -> KeptRevision? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM presentation WHERE id = ?", arguments: [presentationId]) else {
            return nil
        }
        let installed = try Row.fetchOne(
            db, sql: "SELECT installedRevision, installedPackageId FROM syncPresentation WHERE id = ?", arguments: [presentationId])
        let slides = try Row.fetchAll(
            db, sql: "SELECT * FROM slide WHERE presentationId = ? ORDER BY position, name", arguments: [presentationId]
        )
        .map {
            KeptRevision.StoredSlide(
                name: $0["name"], title: $0["title"], swipeNext: $0["swipeNext"], swipePrevious: $0["swipePrevious"],
                links: $0["links"], position: $0["position"])
        }
        let media = try Row.fetchAll(
            db, sql: "SELECT * FROM mediaFile WHERE presentationId = ? ORDER BY fileName", arguments: [presentationId]
        )
        .map { KeptRevision.StoredMediaFile(fileName: $0["fileName"], title: $0["title"]) }
        let encoder = JSONEncoder()
        let kept = KeptRevision(
            folder: row["folder"], presentationId: presentationId, revision: row["revision"],
            packageRevision: installed?["installedRevision"], packageId: installed?["installedPackageId"], name: row["name"],
            shortDescription: row["shortDescription"], longDescription: row["longDescription"], sortOrder: row["sortOrder"],
            sizeBytes: row["sizeBytes"], fileCount: row["fileCount"], source: row["source"], installedAt: row["installedAt"],
            slides: String(decoding: try encoder.encode(slides), as: UTF8.self),
            mediaFiles: String(decoding: try encoder.encode(media), as: UTF8.self), keptAt: at,
            dialect: (row["dialect"] as String?).flatMap(DialectName.init(rawValue:)) ?? .storyclm)
        try kept.save(db)
        return kept
    }

    /// Points the library row of the kept revision's presentation at it (row, slides, media
    /// files) and drops it from the kept ones.
    static func serve(_ db: Database, _ kept: KeptRevision) throws {
        let decoder = JSONDecoder()
        let slides = try decoder.decode([KeptRevision.StoredSlide].self, from: Data(kept.slides.utf8))
        let media = try decoder.decode([KeptRevision.StoredMediaFile].self, from: Data(kept.mediaFiles.utf8))
        let id = kept.presentationId
        try db.execute(sql: "DELETE FROM presentation WHERE id = ?", arguments: [id])
        try db.execute(
            sql: """
                INSERT INTO presentation (id, name, shortDescription, longDescription, revision, sortOrder,
                                          folder, sizeBytes, fileCount, source, installedAt, dialect)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, kept.name, kept.shortDescription, kept.longDescription, kept.revision, kept.sortOrder, kept.folder,
                kept.sizeBytes, kept.fileCount, kept.source, kept.installedAt, kept.dialect.rawValue,
            ])
        for slide in slides {
            try db.execute(
                sql: """
                    INSERT INTO slide (presentationId, name, title, swipeNext, swipePrevious, links, position)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, slide.name, slide.title, slide.swipeNext, slide.swipePrevious, slide.links, slide.position ?? 0])
        }
        for file in media {
            try db.execute(
                sql: "INSERT INTO mediaFile (presentationId, fileName, title) VALUES (?, ?, ?)", arguments: [id, file.fileName, file.title])
        }
        _ = try kept.delete(db)
    }

    /// The kept revisions of a presentation, newest first.
    package static func all(_ db: Database, presentationId: Int) throws -> [KeptRevision] {
        try KeptRevision.fetchAll(
            db, sql: "SELECT * FROM keptRevision WHERE presentationId = ? ORDER BY keptAt DESC, revision DESC",
            arguments: [presentationId])
    }

    /// Drops all but the `count` most recently kept revisions of a presentation; returns the
    /// folders no longer referenced (the caller deletes them once the transaction committed).
    static func prune(_ db: Database, presentationId: Int, keeping count: Int) throws -> [String] {
        let dropped = try all(db, presentationId: presentationId).dropFirst(max(0, count))
        for kept in dropped { _ = try kept.delete(db) }
        return dropped.map(\.folder)
    }

    /// Forgets the kept revisions, the pin and the trust records (every `packageTrust` row and the
    /// `trustHighWater` mark: a presentation removed and offered again starts afresh, since removal
    /// is the operator's act) of a presentation being removed; returns the kept folders.
    package static func forget(_ db: Database, presentationId: Int) throws -> [String] {
        let folders = try String.fetchAll(db, sql: "SELECT folder FROM keptRevision WHERE presentationId = ?", arguments: [presentationId])
        try db.execute(sql: "DELETE FROM keptRevision WHERE presentationId = ?", arguments: [presentationId])
        try db.execute(sql: "DELETE FROM revisionPin WHERE presentationId = ?", arguments: [presentationId])
        try db.execute(sql: "DELETE FROM packageTrust WHERE presentationId = ?", arguments: [presentationId])
        try db.execute(sql: "DELETE FROM trustHighWater WHERE presentationId = ?", arguments: [presentationId])
        return folders
    }
}
