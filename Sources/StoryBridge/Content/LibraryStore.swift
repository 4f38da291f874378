import Foundation
import GRDB

/// Why a library operation failed.
package enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    case notInstalled(Int)
    case invalidId(Int)
    case storage(String)

    package var description: String {
        switch self {
        case .notInstalled(let id): return "no presentation with id \(id) is installed"
        case .invalidId(let id): return "presentation ids are positive integers, got \(id)"
        case .storage(let reason): return "library storage failed: \(reason)"
        }
    }
}

/// The installed presentations: folders under the data directory and their catalog in SQLite
/// (name, descriptions, revision, order, slides with links and swipe targets, media files).
///
/// Installing is atomic: the package is unpacked into a staging folder, moved to a folder of its
/// own, and only then does one transaction point the catalog at it. A crash at any point leaves
/// either the old presentation or the new one; stray folders are swept at the next start.
package final class LibraryStore: Sendable {
    /// Catalog facts an install may set.
    package struct InstallOptions: Sendable {
        package var id: Int?
        package var name: String?
        package var shortDescription: String?
        package var longDescription: String?
        package var order: Int?
        package var limits = PackageLimits()
        /// The revision to record; default: one more than the installed one (a synced package
        /// carries the service's revision instead).
        package var revision: Int?
        /// How the zip is read: StoryCLM's package (the default: sync installs the content
        /// service's packages), a Veeva delivery (a zip of key-message zips), or `nil` to detect it
        /// (`storybridge install`: a zip of zips is Veeva's, anything else StoryCLM's).
        package var dialect: DialectName? = .storyclm
        /// What the presentation came from, as `list` shows it; default: the zip's path.
        package var source: String?
        /// Files to add to the unpacked package, by path inside it, when it does not hold them
        /// already (media files a synced package does not carry). They are moved, not copied.
        package var extraFiles: [String: URL] = [:]
        /// Builds the new revision's folder instead of unpacking the zip: given the staging folder
        /// to create, it returns the files and bytes it holds, and removes what it made on error
        /// (a delta update assembles the folder from fetched entries and the installed files).
        package var assemble: (@Sendable (URL) throws -> AssembledFolder)?
        /// Leave the replaced revision's folder on disk (a running `serve` may still be sending
        /// its files until it notices the swap); the next opening of the library sweeps it.
        package var keepsReplacedFolder = false
        /// How many earlier revisions stay on disk for `storybridge rollback` (`--keep-revisions`);
        /// the replaced revision is the newest of them. 0 removes it as before.
        package var keptRevisions = 0
        /// How the package came (recorded in the revision history): `local` for a zip on this
        /// machine, `full` or `delta` for a download.
        package var how: RevisionHistory.How = .local
        /// Bytes received over the network for this revision (recorded in the revision history).
        package var bytesTransferred: Int64 = 0
        /// The size of the downloaded package (recorded in the revision history, where a delta
        /// update's saving is derived from it); nil for a local zip.
        package var packageSize: Int64?
        /// The content package revision installed, for a synced presentation (recorded in the
        /// revision history; the sync catalog keeps its own copy).
        package var packageRevision: Int?
        /// Checks the assembled folder (media added) before it is served, and returns what the
        /// swap transaction records of it (`packageTrust`, docs/design/TRUST.md 2.2). A throw
        /// removes the folder: the served revision is untouched. Its second argument is what the
        /// assembly hashed as it wrote (``AssembledFolder/hashed``; empty for an install without
        /// `assemble`).
        package var verify: (@Sendable (_ staging: URL, _ hashedByAssembly: [String: HashedFile]) throws -> TrustRecord)?

        package init(id: Int? = nil, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    /// What an ``InstallOptions/assemble`` closure built in the staging folder.
    package struct AssembledFolder: Sendable {
        /// Files placed.
        package var files: Int
        /// Their bytes.
        package var bytes: Int64
        /// Files whose hash the assembly took from the bytes it wrote, by path in the folder,
        /// with their facts once placed: ``InstallOptions/verify`` takes each unread while its
        /// facts still hold (docs/design/TRUST.md 2.3).
        package var hashed: [String: HashedFile]

        package init(files: Int, bytes: Int64, hashed: [String: HashedFile] = [:]) {
            self.files = files
            self.bytes = bytes
            self.hashed = hashed
        }
    }

    /// A catalog row with what `list` shows.
    package struct Entry: Sendable, Hashable {
        package var presentation: Presentation
        package var sizeBytes: Int64
        package var fileCount: Int
        package var source: String
        package var installedAt: Date
    }

    package let directory: DataDirectory
    package let database: StoryBridgeDatabase

    /// Opens the library in `directory`, creating it if needed, and sweeps leftovers of
    /// interrupted installs.
    package init(directory: DataDirectory, database: StoryBridgeDatabase? = nil) throws {
        try directory.prepare()
        self.directory = directory
        self.database = try database ?? PhaseTiming.measure("database opened") { try StoryBridgeDatabase(file: directory.database) }
        try PhaseTiming.measure("library swept") { try sweep() }
    }

    // MARK: Reading

    /// All installed presentations, by order then id.
    package func entries() throws -> [Entry] {
        try database.pool.read(entries(db:))
    }

    /// All installed presentations, by order then id, read on a reader's queue (for async code).
    package func readEntries() async throws -> [Entry] {
        try await database.read(entries(db:))
    }

    private func entries(db: Database) throws -> [Entry] {
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM presentation ORDER BY sortOrder, id")
        return try rows.map { try entry(from: $0, db: db) }
    }

    /// The presentations `serve` offers: every installed one but the synced presentations the
    /// service withdrew (state `withdrawn` in the sync catalog; their files stay until removed).
    package func servedEntries() throws -> [Entry] {
        try database.pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM presentation WHERE \(Self.servedCondition) ORDER BY sortOrder, id")
            return try rows.map { try self.entry(from: $0, db: db) }
        }
    }

    /// The SQL condition on `presentation` rows that `serve` offers (see ``servedEntries()``).
    static let servedCondition = "presentation.id NOT IN (SELECT id FROM syncPresentation WHERE state = 'withdrawn')"

    /// One installed presentation.
    package func entry(id: Int) throws -> Entry? {
        try database.pool.read { db in try entry(id: id, db: db) }
    }

    /// The folder of installed presentation `id` (nil when it is not installed), without its
    /// slides and media files: one row read.
    package func folder(id: Int) throws -> URL? {
        try database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT folder FROM presentation WHERE id = ?", arguments: [id])
        }.map { directory.presentations.appendingPathComponent($0) }
    }

    /// One installed presentation, read in `db` (from async code, through ``StoryBridgeDatabase/read(_:)``).
    func entry(id: Int, db: Database) throws -> Entry? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM presentation WHERE id = ?", arguments: [id]) else { return nil }
        return try entry(from: row, db: db)
    }

    /// The in-memory library of everything installed.
    package func library() throws -> PresentationLibrary {
        PresentationLibrary(try entries().map(\.presentation))
    }

    private func entry(from row: Row, db: Database) throws -> Entry {
        let id: Int = row["id"]
        let slides = try Row.fetchAll(db, sql: "SELECT * FROM slide WHERE presentationId = ? ORDER BY position, name", arguments: [id])
            .map { slide -> Slide in
                let linksText: String = slide["links"]
                let links = (try? JSONDecoder().decode([String].self, from: Data(linksText.utf8))) ?? []
                return Slide(
                    name: slide["name"],
                    metadata: SlideMetadata(
                        swipeNext: slide["swipeNext"], swipePrevious: slide["swipePrevious"], links: links,
                        title: slide["title"]))
            }
        let media = try Row.fetchAll(
            db, sql: "SELECT * FROM mediaFile WHERE presentationId = ? ORDER BY fileName", arguments: [id]
        ).map { MediaFile(fileName: $0["fileName"], title: $0["title"]) }
        let folder: String = row["folder"]
        var presentation = Presentation(
            id: id, name: row["name"], shortDescription: row["shortDescription"], longDescription: row["longDescription"],
            revision: row["revision"], order: row["sortOrder"],
            root: directory.presentations.appendingPathComponent(folder), slides: slides, mediaFiles: media,
            flags: try SyncCatalogFacts.flags(presentationId: id, source: row["source"], db: db))
        presentation.flags.quarantine = try SyncCatalogFacts.quarantine(folder: folder, db: db)
        presentation.dialect = DialectName(rawValue: row["dialect"] ?? "") ?? .storyclm
        if presentation.dialect == .veeva {
            // The CRM data set is found as when the delivery is read (a listing of its root).
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: presentation.root.path)) ?? []
            presentation.crmDataSet = try? CRMDataSetFile.locate(in: presentation.root, entries: entries)
        }
        return Entry(
            presentation: presentation, sizeBytes: row["sizeBytes"], fileCount: row["fileCount"], source: row["source"],
            installedAt: row["installedAt"])
    }

    // MARK: Installing and removing

    /// Installs (or replaces) a presentation from a zip package, and reads its entry back from
    /// the catalog (``installRevision(zip:options:progress:alongside:)`` without the read).
    ///
    /// `alongside` runs inside the transaction that points the catalog at the new folder, so a
    /// caller's own bookkeeping (the sync catalog's installed revision) changes with it or not at all.
    package func install(
        zip: URL, options: InstallOptions = InstallOptions(), progress: PackageExtractor.Progress? = nil,
        alongside: ((Database) throws -> Void)? = nil
    ) throws -> Entry {
        let folderName = try installRevision(zip: zip, options: options, progress: progress, alongside: alongside)
        guard let entry = try PhaseTiming.measure("installed entry read back", { try self.entry(forFolder: folderName) }) else {
            throw LibraryError.storage("the catalog lost the row it just wrote")
        }
        return entry
    }

    /// Installs (or replaces) a presentation from a zip package and returns the name of its new
    /// folder once the transaction that serves it is committed; for callers that do not need the
    /// entry (sync), which then costs no read of the catalog.
    @discardableResult
    package func installRevision(
        zip: URL, options: InstallOptions = InstallOptions(), progress: PackageExtractor.Progress? = nil,
        alongside: ((Database) throws -> Void)? = nil
    ) throws -> String {
        if let id = options.id, id <= 0 { throw LibraryError.invalidId(id) }
        // Held until the row naming the new folder is written: a sweep in another process skips.
        let installLock = try PhaseTiming.measure("install lock") { try LibraryInstallLock.acquire(in: directory) }
        defer { installLock.release() }
        let folderName = UUID().uuidString.lowercased()
        let staging = directory.staging.appendingPathComponent(folderName)
        // Not given: a zip of zips is a Veeva or OCE delivery (detected once unpacked), anything
        // else StoryCLM's package (read as before).
        var dialect = options.dialect
        let detected = options.dialect == nil
        // A folder (not a zip): a Veeva or OCE delivery of key-message (sequence) zips, unpacked
        // zip by zip; its dialect is read from the unpacked folders unless forced.
        let deliveryFolder = options.assemble == nil && FileManager.default.isFolder(zip)
        if deliveryFolder, !DeliveryUnpacking.needsUnpacking(folder: zip, dialect: dialect) {
            throw PackageError.folderNotADelivery(path: zip.path)
        }
        if dialect == nil, !deliveryFolder {
            dialect =
                options.assemble == nil && (try? VeevaDeliveryUnpacker(limits: options.limits).isZipOfZips(zip)) == true
                ? .veeva : .storyclm
        }
        let unpacked: AssembledFolder
        if let assemble = options.assemble {
            unpacked = try PhaseTiming.measure("revision folder assembled") { try assemble(staging) }
        } else if deliveryFolder {
            unpacked = try PhaseTiming.measure("delivery unpacked") {
                try DeliveryUnpacking.unpack(folder: zip, to: staging, limits: options.limits)
                return DeliveryUnpacking.unpackedFolder(staging)
            }
        } else if dialect == .storyclm {
            let extracted = try PhaseTiming.measure("package unpacked") {
                try PackageExtractor(limits: options.limits).extract(zip: zip, to: staging, progress: progress)
            }
            unpacked = AssembledFolder(files: extracted.files, bytes: extracted.bytes)
        } else {
            // A Veeva delivery, or a zip whose dialect is detected: each inner zip is checked as a package.
            unpacked = try PhaseTiming.measure("delivery unpacked") {
                try DeliveryUnpacking.unpack(zip: zip, to: staging, dialect: dialect, limits: options.limits)
                return DeliveryUnpacking.unpackedFolder(staging)
            }
        }
        let final = directory.presentations.appendingPathComponent(folderName)
        do {
            let scanned = try PhaseTiming.measure("revision folder validated") {
                try Self.addExtraFiles(options.extraFiles, to: staging)
                var catalog = PresentationFolder.Catalog(id: options.id ?? 1)
                // A zip of zips found above is read as the dialect its folders show (Veeva or OCE).
                catalog.dialect = detected && dialect != .storyclm ? nil : dialect
                return try PresentationFolder.load(staging, catalog: catalog)
            }
            let trustRecord = try options.verify.map { verify in
                try PhaseTiming.measure("trust: tree verified") { try verify(staging, unpacked.hashed) }
            }
            try PhaseTiming.measure("revision folder moved into place") { try FileManager.default.moveItem(at: staging, to: final) }
            let source = options.source ?? zip.standardizedFileURL.path
            let swapBegan = PhaseTiming.begin()
            let released: [String] = try database.writeSeparately { db in
                let id = try options.id ?? (Int.fetchOne(db, sql: "SELECT MAX(id) FROM presentation") ?? 0) + 1
                let old = try Row.fetchOne(db, sql: "SELECT * FROM presentation WHERE id = ?", arguments: [id])
                if old != nil, options.keptRevisions > 0 { try KeptRevisions.keepServed(db, presentationId: id) }
                let revision = options.revision ?? (old?["revision"] as Int? ?? 0) + 1
                let defaultName = zip.deletingPathExtension().lastPathComponent
                try db.execute(sql: "DELETE FROM presentation WHERE id = ?", arguments: [id])
                try db.execute(
                    sql: """
                        INSERT INTO presentation (id, name, shortDescription, longDescription, revision, sortOrder,
                                                  folder, sizeBytes, fileCount, source, installedAt, dialect)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        // A reinstall keeps the catalog facts it is not given.
                        id, options.name ?? old?["name"] ?? defaultName,
                        options.shortDescription ?? old?["shortDescription"] ?? "",
                        options.longDescription ?? old?["longDescription"] ?? "",
                        revision, options.order ?? old?["sortOrder"] ?? id, folderName, unpacked.bytes, unpacked.files, source, Date(),
                        scanned.dialect.rawValue,
                    ])
                // One compiled statement and one encoder for all rows (a deck has hundreds of
                // slides, and this transaction is what a swap waits for).
                let insertSlide = try db.cachedStatement(
                    sql: """
                        INSERT INTO slide (presentationId, name, title, swipeNext, swipePrevious, links, position)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """)
                let encoder = JSONEncoder()
                // StoryCLM's slides are in name order: position 0 for all keeps it.
                let ordered = scanned.dialect != .storyclm
                for (position, slide) in scanned.slides.enumerated() {
                    let links = String(decoding: try encoder.encode(slide.metadata.links), as: UTF8.self)
                    try insertSlide.execute(arguments: [
                        id, slide.name, slide.metadata.title, slide.metadata.swipeNext, slide.metadata.swipePrevious, links,
                        ordered ? position : 0,
                    ])
                }
                let insertMedia = try db.cachedStatement(sql: "INSERT INTO mediaFile (presentationId, fileName, title) VALUES (?, ?, ?)")
                for media in scanned.mediaFiles {
                    try insertMedia.execute(arguments: [id, media.fileName, media.title])
                }
                try alongside?(db)
                try trustRecord?.write(db, folder: folderName)
                // A new revision ends a rollback's pin (sync installs one only once the pin is lifted).
                try db.execute(sql: "DELETE FROM revisionPin WHERE presentationId = ?", arguments: [id])
                try RevisionHistory.record(
                    db, presentationId: id, event: old == nil ? .install : .update, how: options.how, revision: revision,
                    packageRevision: options.packageRevision, bytes: options.bytesTransferred, packageSize: options.packageSize)
                var released = try KeptRevisions.prune(db, presentationId: id, keeping: options.keptRevisions)
                if let replaced: String = old?["folder"], options.keptRevisions == 0 { released.append(replaced) }
                // What a released folder was checked against goes with it.
                for folder in released { try db.execute(sql: "DELETE FROM packageTrust WHERE folder = ?", arguments: [folder]) }
                return released
            }
            PhaseTiming.record("swap: catalog, history and kept revisions committed", since: swapBegan)
            if !options.keepsReplacedFolder {
                for folder in released { try? FileManager.default.removeItem(at: directory.presentations.appendingPathComponent(folder)) }
            }
            return folderName
        } catch {
            try? FileManager.default.removeItem(at: staging)
            try? FileManager.default.removeItem(at: final)
            throw error
        }
    }

    private static func addExtraFiles(_ files: [String: URL], to staging: URL) throws {
        let fileManager = FileManager.default
        for (relative, file) in files.sorted(by: { $0.key < $1.key }) {
            let components = relative.split(separator: "/")
            guard !components.isEmpty, !relative.hasPrefix("/"), !components.contains(where: { $0 == ".." || $0 == "." }) else {
                throw PackageError.unsafeEntry(name: relative, reason: "an added file must stay inside the package")
            }
            let target = staging.appendingPathComponent(relative)
            guard !fileManager.fileExists(atPath: target.path) else { continue }
            do {
                try fileManager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try fileManager.moveItem(at: file, to: target)
            } catch {
                throw PackageError.writeFailed(path: relative, reason: "cannot add the file: \(SystemProblem(error))")
            }
        }
    }

    private func entry(forFolder folder: String) throws -> Entry? {
        let id = try database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT id FROM presentation WHERE folder = ?", arguments: [folder])
        }
        return try id.flatMap { try entry(id: $0) }
    }

    /// Removes an installed presentation: the catalog row first, then its folder.
    /// Its kept revisions go with it, and the revision history records the removal.
    package func remove(id: Int) throws {
        let folders: [String]? = try database.writeSeparately { db in
            guard let folder = try String.fetchOne(db, sql: "SELECT folder FROM presentation WHERE id = ?", arguments: [id]) else {
                return nil
            }
            try db.execute(sql: "DELETE FROM presentation WHERE id = ?", arguments: [id])
            try RevisionHistory.record(
                db, presentationId: id, event: .removal, how: .removal, revision: nil, packageRevision: nil, bytes: 0)
            return [folder] + (try KeptRevisions.forget(db, presentationId: id))
        }
        guard let folders else { throw LibraryError.notInstalled(id) }
        for folder in folders { try? FileManager.default.removeItem(at: directory.presentations.appendingPathComponent(folder)) }
    }

    /// Deletes staging leftovers and presentation folders that no catalog row or kept revision points at.
    private func sweep() throws {
        // An install in progress (here or in another process) owns folders no row names yet.
        guard let sweepLock = try LibraryInstallLock.tryAcquire(in: directory) else { return }
        defer { sweepLock.release() }
        let fileManager = FileManager.default
        let leftovers = (try? fileManager.contentsOfDirectory(atPath: directory.staging.path)) ?? []
        let referenced = Set(
            try database.pool.read { db in
                try String.fetchAll(db, sql: "SELECT folder FROM presentation UNION SELECT folder FROM keptRevision")
            })
        let unreferenced = ((try? fileManager.contentsOfDirectory(atPath: directory.presentations.path)) ?? []).filter {
            !referenced.contains($0)
        }
        guard !leftovers.isEmpty || !unreferenced.isEmpty else { return }
        // A replaced folder and a staging leftover share inodes with the revisions kept: their
        // verified facts are kept across the removal (docs/design/TRUST.md 2.3.1).
        VerifiedFacts.preserving(folders: Array(referenced), in: directory) {
            for name in leftovers { try? fileManager.removeItem(at: directory.staging.appendingPathComponent(name)) }
            for name in unreferenced { try? fileManager.removeItem(at: directory.presentations.appendingPathComponent(name)) }
        }
    }
}
