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
            let unpacked = try PackageExtractor(limits: limits).extract(zip: changes, to: destination, requiresStartSlide: false)
            counts.files = unpacked.files
            counts.bytes = unpacked.bytes
        } else {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        }
        do {
            // Each folder is created once, not once per file linked into it (a 200-slide package
            // has thousands of files in a handful of folders; each creation costs a stat per
            // path component).
            var folders: Set<String> = []
            func makeFolder(_ path: String) throws {
                guard !path.isEmpty, folders.insert(path).inserted else { return }
                try FileManager.default.createDirectory(
                    at: destination.appendingPathComponent(path), withIntermediateDirectories: true)
            }
            for folder in delta.plan.folders { try makeFolder(String(folder.name.dropLast())) }
            let installedPath = installed.path
            let destinationPath = destination.path
            for entry in delta.plan.reused {
                if let slash = entry.name.lastIndex(of: "/") { try makeFolder(String(entry.name[..<slash])) }
                let copied = try reuse(entry, from: installedPath, into: destinationPath)
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

    /// Links (or copies) one unchanged file into its folder, which exists; returns whether it had
    /// to be copied. Paths are joined as strings: building a `URL` per file cost more than the
    /// link itself (about 10 µs each in a debug build, twice per file for thousands of files).
    private func reuse(_ entry: ZipDirectoryEntry, from installedPath: String, into destinationPath: String) throws -> Bool {
        guard Self.installedFileMatches(entry, in: installedPath) else { throw DeltaFallback.installedFileDiffers(entry.name) }
        let source = installedPath + "/" + entry.name
        let target = destinationPath + "/" + entry.name
        if link(source, target) == 0 { return false }
        let reason = errno
        guard reason == EXDEV || reason == EPERM || reason == EMLINK || reason == ENOTSUP else {
            throw DeltaFallback.installedFileDiffers("\(entry.name) (\(String(cString: strerror(reason))))")
        }
        try FileManager.default.copyItem(atPath: source, toPath: target)
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
