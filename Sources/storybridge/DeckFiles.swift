import ArgumentParser
import Foundation
import StoryBridge

/// The files of one revision of a deck, as `shots` and `diff` take it: a revision of an installed
/// deck that is on disk, a presentation folder, or a package zip (unpacked into a temporary folder
/// for the run).
///
/// Only the installed revision of a deck is on disk today: keeping earlier revisions on update is
/// issue #32 (`--keep-revisions`). Until then an older revision is given as its folder or zip.
struct DeckFiles {
    var folder: URL
    var catalog: PresentationFolder.Catalog
    /// What the files are, for messages and reports: "presentation 3, revision 2", a path.
    var label: String
    var temporaryFolder: URL?

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
            if isDirectory.boolValue {
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

    /// The installed deck `id`, checked to be at `revision` when one is given.
    static func installed(id: Int, revision: Int?, library: LibraryOptions) throws -> DeckFiles {
        guard let entry = try library.openLibrary().entry(id: id) else {
            throw ValidationError("no presentation with id \(id) is installed (see: storybridge list)")
        }
        let presentation = entry.presentation
        if let revision, revision != presentation.revision {
            throw CommandFailure(
                "revision \(revision) of presentation \(id) is not on disk (revision \(presentation.revision) is installed; "
                    + "earlier revisions are not kept yet, issue #32): give that revision's folder or package zip instead",
                status: CommandFailure.badInput)
        }
        var catalog = PresentationFolder.Catalog(id: id, name: presentation.name)
        catalog.revision = presentation.revision
        return DeckFiles(
            folder: presentation.root, catalog: catalog, label: "presentation \(id), revision \(presentation.revision)")
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

    private static func unpack(zip: URL, catalog: PresentationFolder.Catalog) throws -> DeckFiles {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-deck-\(UUID().uuidString)")
        do {
            _ = try PackageExtractor().extract(zip: zip, to: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CommandFailure("cannot unpack '\(zip.path)'", error, status: CommandFailure.badInput)
        }
        var named = catalog
        named.name = zip.deletingPathExtension().lastPathComponent
        return DeckFiles(folder: folder, catalog: named, label: zip.path, temporaryFolder: folder)
    }
}
