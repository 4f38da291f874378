import Foundation
import StoryBridge

/// Builds a new revision folder from a fetched delta: the changed entries unpacked from the
/// changes zip with the checks of a full install (sizes, ratios, CRC-32 of every entry), folders
/// created, and every unchanged file hard-linked from the installed revision (copied where a
/// link is not possible), after checking that the installed file still has its indexed size
/// (``UnchangedFileLinker``).
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
            let linker = UnchangedFileLinker(installed: installed, destination: destination)
            let linked = try linker.link(delta.plan.reused, folders: delta.plan.folders)
            counts.files += linked.files
            counts.bytes += linked.bytes
            counts.linked = linked.linked
            counts.copied = linked.copied
            return counts
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    /// Whether the installed revision at `installedPath` holds `entry` as a regular file of its
    /// indexed size (not a link, not another size).
    static func installedFileMatches(_ entry: ZipDirectoryEntry, in installedPath: String) -> Bool {
        var status = stat()
        return lstat(installedPath + "/" + entry.name, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            && Int64(status.st_size) == entry.uncompressedSize
    }
}
