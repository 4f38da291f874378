import Foundation
import StoryBridge

/// Hard-links a delta update's unchanged files from the installed revision folder into the new
/// one (copied where a link is not possible), after checking that each installed file is still
/// a regular file of its indexed size.
///
/// The work goes folder by folder, one depth of folders after another (a folder's parent exists
/// before it is made), each folder made once, on one thread: linking on four threads at once was
/// slower in the benchmark (docs/BENCHMARKS.md, "tried, not kept"). Names are resolved from the
/// two revision folders' descriptors (`mkdirat`, `fstatat`, `linkat`): no path walked from the
/// root per file, no `URL` or `FileManager` per file.
struct UnchangedFileLinker: Sendable {
    /// The installed revision's folder.
    var installed: URL
    /// The new revision's folder, which exists.
    var destination: URL

    /// What the linker did.
    struct Counts: Sendable, Hashable {
        var files = 0
        var bytes: Int64 = 0
        var linked = 0
        var copied = 0
    }

    /// Makes every folder `files` and `folders` need and links (or copies) each of `files`.
    /// Throws ``DeltaFallback/installedFileDiffers(_:)`` when an installed file is not what the
    /// index says, `PackageError.writeFailed` when a folder cannot be made; the caller removes
    /// the half-built folder.
    func link(_ files: [ZipDirectoryEntry], folders: [ZipDirectoryEntry]) throws -> Counts {
        let from = try Self.openFolder(installed.path)
        defer { close(from) }
        let into = try Self.openFolder(destination.path)
        defer { close(into) }
        var counts = Counts()
        for folder in Self.levels(files: files, folders: folders).joined() {
            if !folder.path.isEmpty {
                guard mkdirat(into, folder.path, 0o755) == 0 || errno == EEXIST else {
                    throw PackageError.writeFailed(path: folder.path, reason: String(cString: strerror(errno)))
                }
            }
            for entry in folder.files {
                let copied = try reuse(entry, from: from, into: into)
                counts.files += 1
                counts.bytes += entry.uncompressedSize
                if copied { counts.copied += 1 } else { counts.linked += 1 }
            }
        }
        return counts
    }

    /// A folder to make (`path` empty: the revision folder itself) and the files linked into it.
    struct Folder: Sendable {
        var path: String
        var files: [ZipDirectoryEntry] = []
    }

    /// The folders by depth, shallowest first: every folder of `folders`, every parent of a file
    /// and of a folder, each with the files directly inside it.
    static func levels(files: [ZipDirectoryEntry], folders: [ZipDirectoryEntry]) -> [[Folder]] {
        var byPath: [String: Folder] = [:]
        func add(_ path: Substring) {
            guard byPath[String(path)] == nil else { return }
            byPath[String(path)] = Folder(path: String(path))
            if let slash = path.lastIndex(of: "/") { add(path[..<slash]) } else if !path.isEmpty { add("") }
        }
        for folder in folders { add(folder.name.hasSuffix("/") ? folder.name.dropLast() : folder.name[...]) }
        for file in files {
            let parent = file.name.lastIndex(of: "/").map { file.name[..<$0] } ?? ""
            add(parent)
            byPath[String(parent)]?.files.append(file)
        }
        var levels: [[Folder]] = []
        for folder in byPath.values.sorted(by: { $0.path < $1.path }) {
            let depth = folder.path.isEmpty ? 0 : folder.path.utf8.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
            while levels.count <= depth { levels.append([]) }
            levels[depth].append(folder)
        }
        return levels.filter { !$0.isEmpty }
    }

    /// Links (or copies) one unchanged file into its folder, which exists; returns whether it had
    /// to be copied.
    private func reuse(_ entry: ZipDirectoryEntry, from installedFolder: Int32, into folder: Int32) throws -> Bool {
        var status = stat()
        guard fstatat(installedFolder, entry.name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG,
            Int64(status.st_size) == entry.uncompressedSize
        else { throw DeltaFallback.installedFileDiffers(entry.name) }
        if linkat(installedFolder, entry.name, folder, entry.name, 0) == 0 { return false }
        let reason = errno
        guard reason == EXDEV || reason == EPERM || reason == EMLINK || reason == ENOTSUP else {
            throw DeltaFallback.installedFileDiffers("\(entry.name) (\(String(cString: strerror(reason))))")
        }
        try FileManager.default.copyItem(atPath: installed.path + "/" + entry.name, toPath: destination.path + "/" + entry.name)
        return true
    }

    /// A descriptor of the folder at `path`, to resolve names from.
    private static func openFolder(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }
}
