import Foundation
import StoryBridge

/// Builds a new revision folder from a fetched delta: the work folder of linked unchanged files
/// (``DeltaFetch``, ``UnchangedFileLinker``) moved into place, the listing's folder entries made,
/// and the changed entries unpacked into it from the changes zip with the checks of a full
/// install (sizes, ratios, CRC-32 of every entry).
struct DeltaAssembly: Sendable {
    var delta: FetchedDelta
    var limits: PackageLimits

    /// What the assembly did.
    struct Counts: Sendable, Hashable {
        var files = 0
        var bytes: Int64 = 0
        var linked = 0
        var copied = 0
    }

    /// Moves the linked folder to `destination` (which must not exist) and fills it. On any
    /// error the folder is removed, so nothing half-assembled is left.
    func assemble(into destination: URL) throws -> Counts {
        let linked = delta.linked
        var counts = Counts(files: linked.files, bytes: linked.bytes, linked: linked.linked, copied: linked.copied)
        try PhaseTiming.measure("delta: linked folder moved to staging") { try Self.move(delta.linkedFolder, to: destination) }
        do {
            try UnchangedFileLinker.makeFolders(delta.plan.folders, in: destination)
            if let changes = delta.changesZip {
                let unpacked = try PhaseTiming.measure("delta: changed entries unpacked (CRC checked)") {
                    try PackageExtractor(limits: limits).extract(
                        zip: changes, to: destination, requiresStartSlide: false, destinationExists: true)
                }
                counts.files += unpacked.files
                counts.bytes += unpacked.bytes
            }
            return counts
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    /// Renames `folder` to `destination` (copied and removed across file systems).
    private static func move(_ folder: URL, to destination: URL) throws {
        guard rename(folder.path, destination.path) != 0 else { return }
        guard errno == EXDEV else { throw PackageError.writeFailed(path: destination.path, reason: String(cString: strerror(errno))) }
        do {
            try FileManager.default.moveItem(at: folder, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw PackageError.writeFailed(path: destination.path, reason: SystemProblem(error).description)
        }
    }
}
