import Foundation
import StoryBridge

/// Builds a new revision folder from a fetched delta: the changed entries unpacked from the
/// changes zip with the checks of a full install (sizes, ratios, CRC-32 of every entry), folders
/// created, and every unchanged file hard-linked from the installed revision (copied where a
/// link is not possible), after checking that the installed file still has its indexed size.
struct DeltaAssembly: Sendable {
    var delta: FetchedDelta
    /// The installed revision's folder.
    var installed: URL
    var limits: PackageLimits

    /// What the assembly did.
    struct Counts: Sendable, Hashable {
        var files = 0
        var bytes: Int64 = 0
        var linked = 0
        var copied = 0
    }

    /// Creates `destination` (which must not exist) and fills it. On any error the folder is
    /// removed, so nothing half-assembled is left.
    func assemble(into destination: URL) throws -> Counts {
        var counts = Counts()
        if let changes = delta.changesZip {
            let unpacked = try PhaseTiming.measure("delta: changed entries unpacked (CRC checked)") {
                try PackageExtractor(limits: limits).extract(zip: changes, to: destination, requiresStartSlide: false)
            }
            counts.files = unpacked.files
            counts.bytes = unpacked.bytes
        } else {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        }
        do {
            let linksBegan = PhaseTiming.begin()
            defer { PhaseTiming.record("delta: unchanged files linked", since: linksBegan) }
            // Names are resolved from the two revision folders' descriptors (`mkdirat`, `fstatat`,
            // `linkat`): no path from the file system's root walked again per file, no `URL` and
            // no `FileManager` per file (each cost more than the link itself, for hundreds of files).
            let from = try Self.openFolder(installed.path)
            defer { close(from) }
            let into = try Self.openFolder(destination.path)
            defer { close(into) }
            // Each folder is created once, parents first, not once per file linked into it.
            var folders: Set<String> = []
            func makeFolder(_ path: Substring) throws {
                guard !path.isEmpty, folders.insert(String(path)).inserted else { return }
                if let slash = path.lastIndex(of: "/") { try makeFolder(path[..<slash]) }
                guard mkdirat(into, String(path), 0o755) == 0 || errno == EEXIST else {
                    throw PackageError.writeFailed(path: String(path), reason: String(cString: strerror(errno)))
                }
            }
            for folder in delta.plan.folders { try makeFolder(folder.name.dropLast()) }
            for entry in delta.plan.reused {
                if let slash = entry.name.lastIndex(of: "/") { try makeFolder(entry.name[..<slash]) }
                let copied = try reuse(entry, from: from, into: into, destination: destination)
                counts.files += 1
                counts.bytes += entry.uncompressedSize
                if copied { counts.copied += 1 } else { counts.linked += 1 }
            }
            return counts
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    /// A descriptor of the folder at `path`, to resolve names from.
    private static func openFolder(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }

    /// Links (or copies) one unchanged file into its folder, which exists; returns whether it had
    /// to be copied.
    private func reuse(_ entry: ZipDirectoryEntry, from installedFolder: Int32, into folder: Int32, destination: URL) throws -> Bool {
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

    /// Whether the installed revision at `installedPath` holds `entry` as a regular file of its
    /// indexed size (not a link, not another size).
    static func installedFileMatches(_ entry: ZipDirectoryEntry, in installedPath: String) -> Bool {
        var status = stat()
        return lstat(installedPath + "/" + entry.name, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            && Int64(status.st_size) == entry.uncompressedSize
    }
}
