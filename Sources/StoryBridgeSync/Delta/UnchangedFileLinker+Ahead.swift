import Foundation
import StoryBridge

extension UnchangedFileLinker {
    /// The installed revision's files linked ahead of the plan (``linkAhead(_:)``).
    struct LinkedAhead: Sendable {
        /// The files linked or copied, by name.
        var reused: Set<String> = []
        /// The files that had to be copied.
        var copied: Set<String> = []
        /// The files left out because the installed copy is missing or not of its indexed size.
        var differing: Set<String> = []
    }

    /// Links (or copies) every file of the installed revision's `index` whose installed copy is
    /// a regular file of its indexed size, with its parent folders, before the new package's
    /// listing is known: the names are the index's (an installed revision's checked names), so
    /// nothing of a new, unchecked listing is touched. Files that differ are left out and said.
    func linkAhead(_ index: DeltaIndex) throws -> LinkedAhead {
        let from = try Self.openFolder(installed.path)
        defer { close(from) }
        let into = try Self.openFolder(destination.path)
        defer { close(into) }
        var made: Set<Substring> = [""]
        var linked = LinkedAhead()
        for (name, entry) in index.files.sorted(by: { $0.key < $1.key }) {
            try Self.makeFolder(name.lastIndex(of: "/").map { name[..<$0] } ?? "", in: into, made: &made)
            switch try reuse(name, size: entry.size, from: from, into: into) {
            case nil: linked.differing.insert(name)
            case false?: linked.reused.insert(name)
            case true?:
                linked.reused.insert(name)
                linked.copied.insert(name)
            }
        }
        return linked
    }

    /// Keeps of the files linked ahead exactly `reused` (the plan's unchanged files): removes the
    /// others (changed or gone in the new package) and the folders that are left empty by that.
    /// Throws ``DeltaFallback/installedFileDiffers(_:)`` when one of `reused` was left out.
    func keep(_ reused: [ZipDirectoryEntry], of linked: LinkedAhead) throws -> Counts {
        var counts = Counts()
        var kept = Set<String>()
        kept.reserveCapacity(reused.count)
        for entry in reused {
            guard linked.reused.contains(entry.name) else { throw DeltaFallback.installedFileDiffers(entry.name) }
            kept.insert(entry.name)
            counts.files += 1
            counts.bytes += entry.uncompressedSize
            if linked.copied.contains(entry.name) { counts.copied += 1 } else { counts.linked += 1 }
        }
        let into = try Self.openFolder(destination.path)
        defer { close(into) }
        for name in linked.reused where !kept.contains(name) {
            guard unlinkat(into, name, 0) == 0 || errno == ENOENT else {
                throw PackageError.writeFailed(path: name, reason: String(cString: strerror(errno)))
            }
            // Folders left empty go (`rmdir` fails on one that is not); the assembly makes again
            // any that the new package needs.
            var folder = Substring(name)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                if unlinkat(into, String(folder), AT_REMOVEDIR) != 0 { break }
            }
        }
        return counts
    }
}
