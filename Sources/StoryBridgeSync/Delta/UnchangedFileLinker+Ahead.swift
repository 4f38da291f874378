import Foundation
import StoryBridge
import Synchronization

extension UnchangedFileLinker {
    /// The installed revision's files linked ahead of the plan (``linkAhead(_:)``).
    struct LinkedAhead: Sendable {
        /// The files linked or copied, by name.
        var reused: Set<String> = []
        /// The files that had to be copied.
        var copied: Set<String> = []
        /// The files left out because the installed copy is missing or not of its indexed size.
        var differing: Set<String> = []
        /// The linked (not copied) files' facts before and after their link, for the installed
        /// revision's verified facts to vouch for them.
        var facts: [String: LinkedFacts] = [:]
        /// The installed revision's verified facts, read before the linking (nil: none).
        var verified: VerifiedFacts?
    }

    /// Links (or copies) every file of the installed revision's `index` whose installed copy is
    /// a regular file of its indexed size, with its parent folders, before the new package's
    /// listing is known: the names are the index's (an installed revision's checked names), so
    /// nothing of a new, unchecked listing is touched. Files that differ are left out and said.
    ///
    /// Two threads: one makes the folders (parents first, each once), the other links each file
    /// as soon as its folder exists. The `mkdirat`s of one parent serialise on it in the kernel;
    /// the links into other folders need not wait for them (docs/BENCHMARKS.md).
    func linkAhead(_ index: DeltaIndex) throws -> LinkedAhead {
        let from = try Self.openFolder(installed.path)
        defer { close(from) }
        let into = try Self.openFolder(destination.path)
        defer { close(into) }
        let files = index.files.sorted(by: { $0.key < $1.key })
        // The folders in the order they are needed, and for each file how many of them must
        // exist before it is linked.
        var folders: [String] = []
        var planned: Set<Substring> = [""]
        var needed: [Int] = []
        needed.reserveCapacity(files.count)
        for (name, _) in files {
            Self.planFolder(name.lastIndex(of: "/").map { name[..<$0] } ?? "", into: &folders, planned: &planned)
            needed.append(folders.count)
        }
        let (toMake, waits) = (folders, needed)
        let progress = FolderProgress()
        let result = Mutex<Result<LinkedAhead, any Error>?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
                for (made, folder) in toMake.enumerated() {
                    guard mkdirat(into, folder, 0o755) == 0 || errno == EEXIST else {
                        progress.fail(PackageError.writeFailed(path: folder, reason: String(cString: strerror(errno))))
                        return
                    }
                    progress.made(made + 1)
                }
            } else {
                let linked = Result { () throws -> LinkedAhead in
                    var linked = LinkedAhead()
                    for (position, (name, entry)) in files.enumerated() {
                        try progress.wait(for: waits[position])
                        guard let reused = try reuse(name, size: entry.size, from: from, into: into) else {
                            linked.differing.insert(name)
                            continue
                        }
                        linked.reused.insert(name)
                        if reused.copied { linked.copied.insert(name) }
                        if let facts = reused.facts { linked.facts[name] = facts }
                    }
                    return linked
                }
                // A failed linking stops the folder making too.
                if case .failure(let error) = linked { progress.fail(error) }
                result.withLock { $0 = linked }
            }
        }
        return try result.withLock { $0! }.get()
    }

    /// Appends folder `path` (relative; empty: the revision folder, which exists) to `folders`
    /// after its parents, unless `planned` holds it already.
    private static func planFolder(_ path: Substring, into folders: inout [String], planned: inout Set<Substring>) {
        guard !planned.contains(path) else { return }
        if let slash = path.lastIndex(of: "/") { planFolder(path[..<slash], into: &folders, planned: &planned) }
        folders.append(String(path))
        planned.insert(path)
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

/// How many folders of a linking ahead exist, for the thread that waits to link into them.
private final class FolderProgress: @unchecked Sendable {
    // `count` and `failure` are guarded by `condition`.
    private let condition = NSCondition()
    private var count = 0
    private var failure: (any Error)?

    /// The first `count` folders exist.
    func made(_ count: Int) {
        condition.lock()
        self.count = count
        condition.unlock()
        condition.signal()
    }

    /// The folders stop here (a folder could not be made, or the linking failed).
    func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.unlock()
        condition.broadcast()
    }

    /// Waits until the first `count` folders exist; throws why they never will.
    func wait(for count: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        while self.count < count {
            if let failure { throw failure }
            condition.wait()
        }
    }
}
