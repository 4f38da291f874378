import Foundation
import StoryBridge

/// Hard-links a delta update's unchanged files from the installed revision folder into the new
/// one (copied where a link is not possible), after checking that each installed file is still
/// a regular file of its indexed size: every file of the installed index ahead of the plan
/// (``linkAhead(_:)``), then only the plan's unchanged ones kept (``keep(_:of:)``).
///
/// Each folder is made once, its parents first, on one thread, while a second links the files
/// into the folders made so far (linking on four threads, one depth of folders after another,
/// was slower: docs/BENCHMARKS.md, "tried, not kept"). Names are resolved from
/// the two revision folders' descriptors (`mkdirat`, `fstatat`, `linkat`): no path walked from
/// the root per file, no `URL` or `FileManager` per file.
struct UnchangedFileLinker: Sendable {
    /// The installed revision's folder.
    var installed: URL
    /// The new revision's folder, which exists.
    var destination: URL
    /// Whether a file that cannot be hard-linked is copied (a delta update) or the linking
    /// fails (a ``ReadyTree``, which holds links only).
    var copiesWhereLinksFail = true

    /// What the linker did.
    struct Counts: Sendable, Hashable {
        var files = 0
        var bytes: Int64 = 0
        var linked = 0
        var copied = 0
    }

    /// Makes every folder of `folders` (folder entries of a checked listing) and its parents in
    /// `destination`, which exists; folders that exist already are left as they are.
    static func makeFolders(_ folders: [ZipDirectoryEntry], in destination: URL) throws {
        let into = try openFolder(destination.path)
        defer { close(into) }
        var made: Set<Substring> = [""]
        for entry in folders {
            try makeFolder(entry.name.hasSuffix("/") ? entry.name.dropLast() : entry.name[...], in: into, made: &made)
        }
    }

    /// Makes folder `path` of the new revision (relative; empty: the revision folder itself,
    /// which exists) after its parents, unless `made` says it was made already.
    static func makeFolder(_ path: Substring, in folder: Int32, made: inout Set<Substring>) throws {
        guard !made.contains(path) else { return }
        if let slash = path.lastIndex(of: "/") { try makeFolder(path[..<slash], in: folder, made: &made) }
        guard mkdirat(folder, String(path), 0o755) == 0 || errno == EEXIST else {
            throw PackageError.writeFailed(path: String(path), reason: String(cString: strerror(errno)))
        }
        made.insert(path)
    }

    /// Links (or copies) installed file `name` into its folder, which exists, when it is a
    /// regular file of `size` bytes; returns whether it had to be copied and, for a link, the
    /// inode's facts just before and just after it (docs/design/TRUST.md 2.3.1), nil when it is
    /// not what the index says (nothing made).
    func reuse(_ name: String, size: Int64, from installedFolder: Int32, into folder: Int32) throws -> (copied: Bool, facts: LinkedFacts?)?
    {
        var status = stat()
        guard fstatat(installedFolder, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG,
            Int64(status.st_size) == size
        else { return nil }
        if linkat(installedFolder, name, folder, name, 0) == 0 {
            let before = FileFacts(status)
            return (false, FileFacts.of(name, in: folder).map { LinkedFacts(before: before, after: $0) })
        }
        let reason = errno
        guard reason == EXDEV || reason == EPERM || reason == EMLINK || reason == ENOTSUP else {
            throw DeltaFallback.installedFileDiffers("\(name) (\(String(cString: strerror(reason))))")
        }
        guard copiesWhereLinksFail else {
            throw PackageError.writeFailed(path: name, reason: "cannot be hard-linked (\(String(cString: strerror(reason))))")
        }
        try FileManager.default.copyItem(atPath: installed.path + "/" + name, toPath: destination.path + "/" + name)
        return (true, nil)
    }

    /// A descriptor of the folder at `path`, to resolve names from.
    static func openFolder(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }
}
