import Foundation
import StoryBridge

/// Builds a new revision folder from a fetched delta: the work folder of linked unchanged files
/// (``DeltaFetch``, ``UnchangedFileLinker``) moved into place, the listing's folder entries made,
/// and the changed files (unpacked already with the checks of a full install: sizes, ratios,
/// CRC-32 of every entry) linked into it from their own work folder.
struct DeltaAssembly: Sendable {
    var delta: FetchedDelta

    /// What the assembly did.
    struct Counts: Sendable, Hashable {
        var files = 0
        var bytes: Int64 = 0
        var linked = 0
        var copied = 0
        /// The changed files placed as the unpacking wrote them (``FetchedDelta/written``), with
        /// their hash and their facts after the move.
        var asWritten: [String: HashedFile] = [:]
    }

    /// Moves the linked folder to `destination` (which must not exist) and fills it. On any
    /// error the folder is removed, so nothing half-assembled is left.
    func assemble(into destination: URL) throws -> Counts {
        let linked = delta.linked
        var counts = Counts(files: linked.files, bytes: linked.bytes, linked: linked.linked, copied: linked.copied)
        try PhaseTiming.measure("delta: linked folder moved to staging") { try Self.move(delta.linkedFolder, to: destination) }
        do {
            try UnchangedFileLinker.makeFolders(delta.plan.folders, in: destination)
            if let changed = delta.changedFolder {
                counts.asWritten = try PhaseTiming.measure("delta: changed files moved in") {
                    try Self.moveIn(delta.plan.changed, from: changed, to: destination, written: delta.written)
                }
                counts.files += delta.unpacked.files
                counts.bytes += delta.unpacked.bytes
            }
            return counts
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    /// Hard-links each of the `changed` files (names of a checked listing, unpacked in `folder`)
    /// into `destination`, its parent folders made first, then unlinks its work name; never over
    /// a file that exists (the work folder is removed with the other work files). Returns the
    /// files of `written` (hashed as the unpacking wrote them) that were still as written just
    /// before their move (same facts: no write since), each with its hash and its facts after
    /// the move (the link and the unlink move its change time).
    static func moveIn(
        _ changed: [ZipDirectoryEntry], from folder: URL, to destination: URL, written: [String: HashedFile]
    ) throws -> [String: HashedFile] {
        let from = try UnchangedFileLinker.openFolder(folder.path)
        defer { close(from) }
        let into = try UnchangedFileLinker.openFolder(destination.path)
        defer { close(into) }
        var made: Set<Substring> = [""]
        var asWritten: [String: HashedFile] = [:]
        for entry in changed {
            let name = entry.name
            try UnchangedFileLinker.makeFolder(name.lastIndex(of: "/").map { name[..<$0] } ?? "", in: into, made: &made)
            var status = stat()
            let unchanged = written[name].flatMap { file in
                fstatat(from, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && FileFacts(status) == file.facts ? file : nil
            }
            if linkat(from, name, into, name, 0) == 0 {
                // The work folder's name goes now, not when the work files are removed after the
                // swap: that later unlink would move the file's change time past its verified
                // facts (docs/design/TRUST.md 2.3.1).
                unlinkat(from, name, 0)
                if let unchanged, fstatat(into, name, &status, AT_SYMLINK_NOFOLLOW) == 0, UInt64(status.st_ino) == unchanged.facts.ino {
                    asWritten[name] = HashedFile(sha256: unchanged.sha256, facts: FileFacts(status))
                }
                continue
            }
            let reason = errno
            guard reason == EXDEV else { throw PackageError.writeFailed(path: name, reason: String(cString: strerror(reason))) }
            do {
                try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: destination.appendingPathComponent(name))
            } catch {
                throw PackageError.writeFailed(path: name, reason: SystemProblem(error).description)
            }
        }
        return asWritten
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
