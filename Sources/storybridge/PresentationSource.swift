import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeSync

/// What `serve` and `inspect` were pointed at: an installed id (or the whole library), a
/// presentation folder, or a .zip unpacked into a temporary folder for the run.
struct PresentationSource {
    var presentations: [Presentation]
    var defaultId: Int?
    var description: String
    var temporaryFolder: URL?
    /// The folder served as is (not a copy), which live reload watches, and its catalog facts.
    var liveFolder: (folder: URL, catalog: PresentationFolder.Catalog)?
    /// The library whose catalog is served (the whole library, or an installed id), which the
    /// catalog watcher follows.
    var library: LibraryStore?

    /// Deletes the temporary folder of an unpacked .zip.
    func cleanUp() {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }

    /// `dialect` forces how a folder or zip is read (`--dialect`); `nil` detects it. A Veeva
    /// delivery's CRM data set is read here, so a malformed one is refused before anything is served.
    static func resolve(
        _ target: String?, library: LibraryOptions, id: Int, name: String? = nil, dialect: DialectName? = nil
    ) throws -> PresentationSource {
        guard let target else {
            let store = try library.openLibrary()
            let all = try store.servedEntries().map(\.presentation)
            guard !all.isEmpty else {
                // A synced library whose first downloads are still under way (a kiosk's first
                // boot) is served empty: presentations appear as they are installed.
                guard (try? SyncLogin.session(directory: library.directory)) != nil else {
                    throw ValidationError(
                        "the library in \(library.directory.root.path) is empty: give a folder or a .zip, install one first, or log in and sync (storybridge login, storybridge sync --content)"
                    )
                }
                return PresentationSource(
                    presentations: [], defaultId: nil,
                    description: "the library (empty for now: presentations appear as storybridge sync --content installs them)",
                    library: store)
            }
            return PresentationSource(
                presentations: all, defaultId: nil, description: "the library (\(all.count) presentations)", library: store)
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory)
        if !exists, let installedId = Int(target) {
            let store = try library.openLibrary()
            guard try store.entry(id: installedId) != nil else {
                throw ValidationError("no presentation with id \(installedId) is installed (see: storybridge list)")
            }
            let all = try store.servedEntries().map(\.presentation)
            return PresentationSource(
                presentations: all, defaultId: installedId, description: "presentation \(installedId) of the library",
                library: store)
        }
        guard exists else { throw ValidationError("'\(target)' does not exist") }
        var catalog = PresentationFolder.Catalog(id: id, name: name)
        catalog.dialect = dialect
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-\(UUID().uuidString)")
        if isDirectory.boolValue {
            let given = URL(fileURLWithPath: target)
            guard DeliveryUnpacking.needsUnpacking(folder: given, dialect: dialect) else {
                let presentation = try checked(PresentationFolder.load(given, catalog: catalog))
                return PresentationSource(
                    presentations: [presentation], defaultId: presentation.id, description: presentation.root.path,
                    liveFolder: (given, catalog))
            }
            // A folder of key-message zips: unpacked for the run, like a zip.
            try DeliveryUnpacking.unpack(folder: given, to: folder)
            catalog.name = name ?? given.lastPathComponent
        } else {
            let zip = URL(fileURLWithPath: target)
            try DeliveryUnpacking.unpack(zip: zip, to: folder, dialect: dialect)
            catalog.name = name ?? zip.deletingPathExtension().lastPathComponent
        }
        do {
            let named = catalog
            let presentation = try checked(PresentationFolder.load(folder, catalog: named))
            return PresentationSource(
                presentations: [presentation], defaultId: presentation.id, description: URL(fileURLWithPath: target).path,
                temporaryFolder: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// The presentation, once its CRM data set (a Veeva delivery's) is read without a fault.
    private static func checked(_ presentation: Presentation) throws -> Presentation {
        if let file = presentation.crmDataSet {
            do {
                _ = try CRMDataSet.load(file)
            } catch {
                throw ValidationError(error.description)
            }
        }
        return presentation
    }
}

extension DialectName: ExpressibleByArgument {}
