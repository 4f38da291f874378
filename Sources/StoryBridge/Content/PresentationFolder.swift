import Foundation

/// Why a folder could not be read as a presentation.
public enum PresentationFolderError: Error, Sendable, Equatable, CustomStringConvertible {
    case notADirectory(String)
    case missingIndex(String)
    case unreadable(path: String, reason: String)

    /// The reason, naming the folder.
    public var description: String {
        switch self {
        case .notADirectory(let path): return "'\(path)' is not a folder"
        case .missingIndex(let path):
            return "'\(path)' has no index.html in its root, nor a folder per key message: it is not a presentation"
        case .unreadable(let path, let reason): return "cannot read '\(path)': \(reason)"
        }
    }
}

/// Reads a presentation from a folder on disk: its root slides with their meta tags, and the
/// files of `mediafiles/`.
public enum PresentationFolder {
    /// Facts about a presentation that the folder does not hold.
    public struct Catalog: Sendable, Hashable {
        /// The presentation's id, as content and analytics know it.
        public var id: Int
        /// The presentation's name; `nil` takes the folder's name.
        public var name: String?
        /// The short description the Presentation module reports.
        public var shortDescription = ""
        /// The long description the Presentation module reports.
        public var longDescription = ""
        /// The revision number, 1 for a folder that has no history.
        public var revision = 1
        /// Where the presentation sorts in the library's list.
        public var order = 0
        /// The dialect to read the folder as; `nil` detects it (``DialectDetection``).
        package var dialect: DialectName?

        /// Catalog facts with an id and, optionally, a name; the rest keep their defaults.
        public init(id: Int, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    /// Loads the presentation in `folder`. The name defaults to the folder's name.
    public static func load(_ folder: URL, catalog: Catalog) throws(PresentationFolderError) -> Presentation {
        let root = folder.standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .notADirectory(folder.path) }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: root.path)
        } catch {
            throw .unreadable(path: root.path, reason: SystemProblem(error).description)
        }
        guard let dialect = catalog.dialect ?? DialectDetection.detect(root: root, entries: entries) else {
            throw .missingIndex(folder.path)
        }
        let slides = try dialect.rules.slides(in: root, entries: entries)
        let mediaFiles = Self.mediaFiles(in: root.appendingPathComponent("mediafiles"))
        var presentation = Presentation(
            id: catalog.id, name: catalog.name ?? root.lastPathComponent,
            shortDescription: catalog.shortDescription, longDescription: catalog.longDescription,
            revision: catalog.revision, order: catalog.order, root: root, slides: slides, mediaFiles: mediaFiles)
        presentation.dialect = dialect
        if dialect == .veeva { presentation.crmDataSet = try CRMDataSetFile.locate(in: root, entries: entries) }
        return presentation
    }

    private static func mediaFiles(in folder: URL) -> [MediaFile] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.sorted().compactMap { name in
            let ext = (name as NSString).pathExtension.lowercased()
            guard MediaFile.allowedExtensions.contains(ext) else { return nil }
            return MediaFile(fileName: name, title: (name as NSString).deletingPathExtension)
        }
    }
}
