import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeScripts

/// The files of one revision of a deck, as `shots` and `diff` take it: a revision of an installed
/// deck that is on disk (the served one or one kept by `--keep-revisions`), a presentation folder,
/// or a package zip (unpacked into a temporary folder for the run).
struct DeckFiles {
    var folder: URL
    var catalog: PresentationFolder.Catalog
    /// What the files are, for messages and reports: "presentation 3, revision 2", a path.
    var label: String
    var temporaryFolder: URL?

    /// These files as the visual diff takes a revision.
    var revision: DeckRevision { DeckRevision(folder: folder, catalog: catalog, label: label) }

    /// Deletes the temporary folder of an unpacked zip.
    func cleanUp() {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }

    /// Resolves `text`: a folder or a `.zip` when such a path exists; otherwise a revision number
    /// of the installed deck `deckId`.
    static func resolve(_ text: String, deckId: Int?, library: LibraryOptions) throws -> DeckFiles {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory) {
            let catalog = PresentationFolder.Catalog(id: deckId ?? 1, name: URL(fileURLWithPath: text).lastPathComponent)
            if isDirectory.boolValue, !DeliveryUnpacking.needsUnpacking(folder: URL(fileURLWithPath: text), dialect: nil) {
                return DeckFiles(folder: URL(fileURLWithPath: text), catalog: catalog, label: text)
            }
            return try unpack(zip: URL(fileURLWithPath: text), catalog: catalog)
        }
        guard let revision = Int(text) else {
            throw ValidationError("'\(text)' is neither a folder, a package zip nor a revision number")
        }
        guard let deckId else {
            throw ValidationError("revision \(revision) needs the deck's id (storybridge diff ID --from R1 --to R2)")
        }
        return try installed(id: deckId, revision: revision, library: library)
    }

    /// The revision `revision` of the installed deck `id` (the served one when nil): the served
    /// revision, else the most recently kept revision with that number. A revision that is not on
    /// disk is refused with the revisions that are.
    static func installed(id: Int, revision: Int?, library: LibraryOptions) throws -> DeckFiles {
        let store = try library.openLibrary()
        guard let entry = try store.entry(id: id) else {
            throw ValidationError("no presentation with id \(id) is installed (see: storybridge list)")
        }
        guard let revision, revision != entry.presentation.revision else { return served(entry.presentation) }
        let kept: [KeptRevision]
        do {
            kept = try store.keptRevisions(id: id)
        } catch {
            throw CommandFailure("cannot read the kept revisions of presentation \(id)", error, status: CommandFailure.storage)
        }
        guard let match = kept.first(where: { $0.revision == revision }) else {
            let onDisk = ["\(entry.presentation.revision) (served)"] + kept.map { "\($0.revision) (kept)" }
            throw CommandFailure(
                "revision \(revision) of presentation \(id) is not on disk; on disk: \(onDisk.joined(separator: ", ")). "
                    + "Sync and install keep --keep-revisions earlier revisions (default 1); an older one can be given as its folder or package zip",
                status: CommandFailure.badInput)
        }
        return try self.kept(match, in: store.directory)
    }

    /// The served revision of an installed deck.
    static func served(_ presentation: Presentation) -> DeckFiles {
        var catalog = PresentationFolder.Catalog(id: presentation.id, name: presentation.name)
        catalog.shortDescription = presentation.shortDescription
        catalog.longDescription = presentation.longDescription
        catalog.revision = presentation.revision
        catalog.order = presentation.order
        catalog.dialect = presentation.dialect
        return DeckFiles(
            folder: presentation.root, catalog: catalog,
            label: "presentation \(presentation.id), revision \(presentation.revision)")
    }

    /// A kept revision, served under the catalog facts it had; refused when its folder is gone.
    static func kept(_ kept: KeptRevision, in directory: DataDirectory) throws(CommandFailure) -> DeckFiles {
        let folder = directory.presentations.appendingPathComponent(kept.folder)
        // A StoryCLM revision starts at its index.html; a Veeva or OCE one at its key-message
        // (sequence) folders, which its dialect's rules check when the folder is read.
        let present =
            kept.dialect == .storyclm
            ? FileManager.default.fileExists(atPath: folder.appendingPathComponent(Presentation.startSlide).path)
            : FileManager.default.isFolder(folder)
        guard present else {
            throw CommandFailure(
                "revision \(kept.revision) of presentation \(kept.presentationId) is recorded as kept but its folder '\(folder.path)' "
                    + (kept.dialect == .storyclm ? "has no index.html" : "is gone") + " (removed by hand?)", status: CommandFailure.storage)
        }
        var catalog = PresentationFolder.Catalog(id: kept.presentationId, name: kept.name)
        catalog.shortDescription = kept.shortDescription
        catalog.longDescription = kept.longDescription
        catalog.revision = kept.revision
        catalog.order = kept.sortOrder
        catalog.dialect = kept.dialect
        return DeckFiles(
            folder: folder, catalog: catalog, label: "presentation \(kept.presentationId), revision \(kept.revision) (kept)")
    }

    /// A deck given as `ID`, a folder or a zip (`shots`).
    static func resolveDeck(_ text: String, revision: Int?, library: LibraryOptions) throws -> DeckFiles {
        if !FileManager.default.fileExists(atPath: text), let id = Int(text) {
            return try installed(id: id, revision: revision, library: library)
        }
        guard revision == nil else {
            throw ValidationError("--revision applies to an installed deck's id, not to a folder or a zip")
        }
        return try resolve(text, deckId: nil, library: library)
    }

    /// Unpacks a package zip, or a Veeva delivery given as a zip of zips or a folder of zips.
    private static func unpack(zip: URL, catalog: PresentationFolder.Catalog) throws -> DeckFiles {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-deck-\(UUID().uuidString)")
        do {
            // A package zip, or a Veeva delivery (a zip of zips, a folder of zips).
            if FileManager.default.isFolder(zip) {
                try DeliveryUnpacking.unpack(folder: zip, to: folder)
            } else {
                try DeliveryUnpacking.unpack(zip: zip, to: folder, dialect: nil)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CommandFailure("cannot unpack '\(zip.path)'", error, status: CommandFailure.badInput)
        }
        var named = catalog
        named.name = zip.deletingPathExtension().lastPathComponent
        return DeckFiles(folder: folder, catalog: named, label: zip.path, temporaryFolder: folder)
    }
}

extension VisualDiff {
    /// Compares `old` with `new` (working in `workFolder`) with a progress line labelled `label`,
    /// as `diff` and `sync --diff-report` show it.
    func compare(_ old: DeckFiles, _ new: DeckFiles, workFolder: URL, progressLabel label: String) async throws -> Result {
        let progress = SlideProgress(label: label)
        defer { progress.finish() }
        return try await compare(old.revision, new.revision, workFolder: workFolder) {
            progress.update(done: $1, total: $2, slide: "(\($0)) \($3)")
        }
    }
}
