import Foundation
import StoryBridge

/// One side of a visual diff: a deck's files in a folder, with the catalog facts to serve them
/// under and a label for the report ("presentation 3, revision 2", a path).
package struct DeckRevision: Sendable {
    package var folder: URL
    package var catalog: PresentationFolder.Catalog
    package var label: String

    package init(folder: URL, catalog: PresentationFolder.Catalog, label: String) {
        self.folder = folder
        self.catalog = catalog
        self.label = label
    }
}

/// A file that is not the same in two revisions.
package struct FileChange: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Codable { case added, removed, modified }
    /// The path inside the deck, `/`-separated.
    package var path: String
    package var kind: Kind

    package init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }
}

/// The files of a deck's folder, by their path inside it.
enum DeckFileList {
    /// Every regular file under `folder`, relative paths, sorted.
    static func paths(in folder: URL) -> [String] {
        let root = folder.standardizedFileURL.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var paths: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                paths.append(relative)
            }
        }
        return paths.sorted()
    }

    /// The files added, removed and modified from `before` to `after`, by path.
    static func changes(from before: URL, to after: URL) -> [FileChange] {
        let old = Set(paths(in: before))
        let new = Set(paths(in: after))
        var changes: [FileChange] = []
        for path in old.union(new).sorted() {
            switch (old.contains(path), new.contains(path)) {
            case (true, false): changes.append(FileChange(path: path, kind: .removed))
            case (false, true): changes.append(FileChange(path: path, kind: .added))
            default:
                let first = try? Data(contentsOf: before.appendingPathComponent(path))
                let second = try? Data(contentsOf: after.appendingPathComponent(path))
                if first != second { changes.append(FileChange(path: path, kind: .modified)) }
            }
        }
        return changes
    }
}
