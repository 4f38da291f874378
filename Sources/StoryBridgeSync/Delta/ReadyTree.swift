import Foundation
import StoryBridge

/// The installed revision's files as hard links in a folder of their own, built after an
/// install's swap so that the next delta update of the presentation starts from it (one
/// `rename`) instead of linking every unchanged file while a viewer waits: the linking is moved
/// off the update's critical path, not removed (docs/SYNC.md, "Ready tree").
///
/// It lives at `<data>/ready/<id>-<folder>` (`folder`: the installed revision's folder name,
/// new for every install, so a tree names the one revision it mirrors), next to the downloads
/// folder where the update's work folder is, on the same file system. It is built as
/// `<id>-<folder>.partial` and renamed when whole: a tree under its final name was complete when
/// it was made. It holds directory entries only (links to the installed files' inodes), no data.
/// Nothing ever opens one of its files for writing: that would change the served revision.
struct ReadyTree: Sendable {
    /// The presentation.
    var presentationId: Int
    /// The installed revision's folder name (under `presentations/`), which the tree mirrors.
    var installedFolder: String
    /// Where the data folder keeps sync's files.
    var paths: SyncPaths

    /// The folder that holds every presentation's ready tree.
    static func folder(in paths: SyncPaths) -> URL {
        paths.directory.root.appendingPathComponent("ready")
    }

    /// The ending of a tree being built (removed by the next run when a kill left it).
    static let partialSuffix = ".partial"

    /// The tree's folder.
    var location: URL { Self.folder(in: paths).appendingPathComponent("\(presentationId)-\(installedFolder)") }
    /// The folder it is built in before it is renamed to ``location``.
    var partial: URL { Self.folder(in: paths).appendingPathComponent("\(presentationId)-\(installedFolder)\(Self.partialSuffix)") }

    /// Why a tree was not built.
    enum BuildFailure: Error, CustomStringConvertible {
        /// Installed files that are not what the index says (the tree would lack them).
        case installedFilesDiffer(count: Int, first: String)

        var description: String {
            switch self {
            case .installedFilesDiffer(let count, let first):
                "\(count) installed file(s) not as indexed (first: \(first))"
            }
        }
    }

    /// Links every file of `index` from `installed` (the revision's folder) into a new tree,
    /// two threads as the update's own linking (``UnchangedFileLinker/linkAhead(_:)``), then
    /// renames it into place; removes this presentation's other trees first (stale: another
    /// revision). Links only, never a copy: where a link is not possible there is no tree. On
    /// any error the partial folder is removed and the error thrown. Returns the files linked.
    @discardableResult
    func build(from installed: URL, index: DeltaIndex) throws -> Int {
        let manager = FileManager.default
        Self.removeAll(presentationId: presentationId, in: paths, except: location.lastPathComponent)
        if manager.fileExists(atPath: location.path) { try manager.removeItem(at: location) }
        try manager.createDirectory(at: partial, withIntermediateDirectories: true)
        do {
            var linker = UnchangedFileLinker(installed: installed, destination: partial)
            linker.copiesWhereLinksFail = false
            let linked = try linker.linkAhead(index)
            if let first = linked.differing.sorted().first {
                throw BuildFailure.installedFilesDiffer(count: linked.differing.count, first: first)
            }
            guard rename(partial.path, location.path) == 0 else {
                throw PackageError.writeFailed(path: location.path, reason: String(cString: strerror(errno)))
            }
            return linked.reused.count
        } catch {
            try? manager.removeItem(at: partial)
            throw error
        }
    }

    /// What ``take(into:index:installed:)`` found.
    enum Taken: Sendable {
        /// The tree is now `workFolder`, each file of the index in it, linked to the installed one.
        case taken(UnchangedFileLinker.LinkedAhead)
        /// There is no tree of this revision.
        case absent
        /// There was one, but not whole or not of this revision (why); it is removed.
        case rejected(String)
    }

    /// Renames the tree to `workFolder` (which must not exist) and checks it against `index`
    /// and the installed revision's folder: every file of the index present, a regular file of
    /// its indexed size and the same inode as the installed file, nothing else in it
    /// (``check(_:index:installed:verified:facts:)``; `verified`: the installed revision's
    /// verified facts, when it has them). A tree that fails is removed.
    func take(into workFolder: URL, index: DeltaIndex, installed: URL, verified: VerifiedFacts? = nil) -> Taken {
        guard rename(location.path, workFolder.path) == 0 else {
            let reason = errno
            if reason == ENOENT { return .absent }
            try? FileManager.default.removeItem(at: location)
            return .rejected("cannot be moved to the work folder (\(String(cString: strerror(reason))))")
        }
        var facts: [String: LinkedFacts] = [:]
        if let problem = Self.check(workFolder, index: index, installed: installed, verified: verified, facts: &facts) {
            try? FileManager.default.removeItem(at: workFolder)
            return .rejected(problem)
        }
        var linked = UnchangedFileLinker.LinkedAhead()
        linked.reused = Set(index.files.keys)
        linked.facts = facts
        return .taken(linked)
    }

    /// Says what is wrong with `tree` as a mirror of the revision in `installed` whose index is
    /// `index`, or nil when nothing is: each indexed file present, a regular file of its size,
    /// the installed file's inode; no other file, no folder that holds no indexed file, nothing
    /// that is neither a file nor a folder.
    static func check(_ tree: URL, index: DeltaIndex, installed: URL) -> String? {
        var facts: [String: LinkedFacts] = [:]
        return check(tree, index: index, installed: installed, facts: &facts)
    }

    /// As ``check(_:index:installed:)``, giving each file's facts (the tree's `stat`, which is
    /// the installed file's when they are one inode: linked before this delta, so `before` and
    /// `after` are one). A file whose inode is the one the installed revision's verified facts
    /// (`verified`) have for its path is the installed revision's file without a `stat` of the
    /// installed side: the facts were taken of the installed file when it was verified, so the
    /// tree holds the inode whose bytes were checked (were the installed name replaced since by
    /// another inode, the tree keeps the verified one; `storybridge verify` names the installed
    /// file). Any other file is compared with the installed file's `stat`.
    static func check(
        _ tree: URL, index: DeltaIndex, installed: URL, verified: VerifiedFacts? = nil, facts: inout [String: LinkedFacts]
    ) -> String? {
        guard let root = try? UnchangedFileLinker.openFolder(tree.path) else { return "cannot be opened" }
        defer { close(root) }
        guard let installedRoot = try? UnchangedFileLinker.openFolder(installed.path) else {
            return "the installed revision's folder cannot be opened"
        }
        defer { close(installedRoot) }
        var expectedFolders: Set<Substring> = []
        for name in index.files.keys {
            var folder = Substring(name)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard expectedFolders.insert(folder).inserted else { break }
            }
        }
        var found = 0
        var pending: [String] = [""]
        while let relative = pending.popLast() {
            let descriptor = relative.isEmpty ? dup(root) : openat(root, relative, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0, let listing = fdopendir(descriptor) else {
                if descriptor >= 0 { close(descriptor) }
                return "folder '\(relative)' cannot be read"
            }
            defer { closedir(listing) }
            while let entry = readdir(listing) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                if name == "." || name == ".." { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                // A folder says so in its directory entry (the tree has half as many folders as
                // files): nothing of its `stat` is needed. Anything else, or a file system that
                // gives no type (`DT_UNKNOWN`), is looked at with `fstatat`.
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    guard expectedFolders.contains(Substring(path)) else { return "an extra folder '\(path)'" }
                    pending.append(path)
                    continue
                }
                var status = stat()
                guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return "'\(path)' cannot be read" }
                switch status.st_mode & S_IFMT {
                case S_IFDIR:
                    guard expectedFolders.contains(Substring(path)) else { return "an extra folder '\(path)'" }
                    pending.append(path)
                case S_IFREG:
                    guard let indexed = index.files[path] else { return "an extra file '\(path)'" }
                    guard Int64(status.st_size) == indexed.size else { return "'\(path)' is not of its indexed size" }
                    let treeFacts = FileFacts(status)
                    if let known = verified?.files[path]?.facts, known.ino == treeFacts.ino, known.dev == treeFacts.dev {
                        facts[path] = LinkedFacts(before: treeFacts, after: treeFacts)
                        found += 1
                        continue
                    }
                    var served = stat()
                    guard fstatat(installedRoot, path, &served, AT_SYMLINK_NOFOLLOW) == 0,
                        served.st_ino == status.st_ino, served.st_dev == status.st_dev
                    else { return "'\(path)' is not the installed file" }
                    facts[path] = LinkedFacts(before: treeFacts, after: treeFacts)
                    found += 1
                default:
                    return "'\(path)' is neither a file nor a folder"
                }
            }
        }
        return found == index.files.count ? nil : "\(index.files.count - found) indexed file(s) missing"
    }

    /// Removes every ready tree of `presentationId` (built or partial) but the one named
    /// `except` (when a presentation is removed, or before a tree of it is built).
    static func removeAll(presentationId: Int, in paths: SyncPaths, except: String? = nil) {
        let folder = folder(in: paths)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix("\(presentationId)-") && name != except {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Removes the trees a run may not trust or need (at the start of a content sync, under the
    /// sync lock): partial ones (a kill during a build), and those of another revision than the
    /// installed one of their presentation (`installed`: presentation id → its folder name),
    /// such as after a rollback or a removal.
    static func sweep(in paths: SyncPaths, installed: [Int: String]) {
        let folder = folder(in: paths)
        for name in stale(in: paths, installed: installed) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// The names of the trees ``sweep(in:installed:)`` removes.
    static func stale(in paths: SyncPaths, installed: [Int: String]) -> [String] {
        let folder = folder(in: paths)
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { name in
            guard let dash = name.firstIndex(of: "-"), let id = Int(name[..<dash]) else { return true }
            return installed[id] != String(name[name.index(after: dash)...])
        }
    }
}
