import Foundation
import StoryBridge

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files a delta update placed in its staging folder, so that rule 7 lists the new tree
/// without walking it (docs/design/TRUST.md 2.3.1): a one-slide delta's tree has hundreds of
/// files in hundreds of folders, and the walk's `open`/`readdir`/`fstatat` of every one was most
/// of the trust layer's time on the update's critical path (docs/BENCHMARKS.md).
///
/// What the walk established is established here by how the tree was made: the reused files are
/// the ones the delta linked, each `fstatat` when it was linked (the ready tree's check, which
/// also found nothing else in the tree, or the linker's own); every other file (changed entries,
/// reused files copied rather than linked, media files added) is named and taken with `fstatat`
/// now. A file a writer of the data folder adds to the staging folder in the milliseconds between
/// the check and the swap is not seen here; `storybridge verify` (run by `serve` at start and on
/// its schedule) names it (docs/SECURITY.md, the kiosk's data folder).
package struct AssembledTree: Sendable {
    /// Reused files by path in the tree, with their facts just after the delta linked them.
    package var linked: [String: FileFacts]
    /// Every other file placed in the tree, by path.
    package var placed: [String]

    package init(linked: [String: FileFacts], placed: [String]) {
        self.linked = linked
        self.placed = placed
    }

    /// The tree's files with their facts, as ``TreeHasher/factsListing(of:)`` gives them for a
    /// walked tree: each linked file with its facts from the link, each placed file with an
    /// `fstatat` relative to `staging` (links not followed). A placed file that is not there is
    /// left out (the comparison with the manifest names it missing); one that is not a regular
    /// file is refused, as the walk refuses it.
    package func listing(in staging: URL) throws(TrustFailure) -> [(path: String, facts: FileFacts)] {
        var files: [(path: String, facts: FileFacts)] = []
        files.reserveCapacity(linked.count + placed.count)
        for (path, facts) in linked { files.append((path, facts)) }
        guard !placed.isEmpty else { return files }
        let root = open(staging.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { throw .unreadable(path: ".", reason: String(cString: strerror(errno))) }
        defer { close(root) }
        for path in Set(placed) where linked[path] == nil {
            var status = stat()
            guard fstatat(root, path, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG: files.append((path, FileFacts(status)))
            case S_IFLNK: throw .unexpectedEntry(path: path, kind: "a symbolic link")
            case S_IFDIR: throw .unexpectedEntry(path: path, kind: "a folder where the package has a file")
            case S_IFIFO: throw .unexpectedEntry(path: path, kind: "a FIFO")
            case S_IFSOCK: throw .unexpectedEntry(path: path, kind: "a socket")
            default: throw .unexpectedEntry(path: path, kind: "a device")
            }
        }
        return files
    }
}
