import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `stat` says of one file of an installed revision: enough to tell, without reading it,
/// that the inode is still the one hashed (docs/design/TRUST.md 2.3.1). A write, `truncate`,
/// `chmod`, `link` or `unlink` of the inode moves its change time, which no unprivileged call can
/// set back (`utimensat` sets the modification time, and moves the change time too).
package struct FileFacts: Sendable, Hashable, Codable {
    package var size: Int64
    package var dev: UInt64
    package var ino: UInt64
    package var ctimeNs: Int64
    package var mtimeNs: Int64

    package init(size: Int64, dev: UInt64, ino: UInt64, ctimeNs: Int64, mtimeNs: Int64) {
        self.size = size
        self.dev = dev
        self.ino = ino
        self.ctimeNs = ctimeNs
        self.mtimeNs = mtimeNs
    }

    /// The facts of a `stat` result.
    package init(_ status: stat) {
        #if canImport(Glibc)
            let ctime = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
            let mtime = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        #else
            let ctime = Int64(status.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(status.st_ctimespec.tv_nsec)
            let mtime = Int64(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(status.st_mtimespec.tv_nsec)
        #endif
        self.init(size: Int64(status.st_size), dev: UInt64(status.st_dev), ino: UInt64(status.st_ino), ctimeNs: ctime, mtimeNs: mtime)
    }

    /// The facts of regular file `name` resolved from folder descriptor `folder` (links not
    /// followed); nil when it is missing or not a regular file.
    package static func of(_ name: String, in folder: Int32) -> FileFacts? {
        var status = stat()
        guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileFacts(status)
    }

    /// Whether `other` is this inode with its size and modification time, whatever its change time.
    func sameContentStamp(as other: FileFacts) -> Bool {
        dev == other.dev && ino == other.ino && size == other.size && mtimeNs == other.mtimeNs
    }
}

/// The verified facts of an installed revision (docs/design/TRUST.md 2.3.1): the hash of the
/// manifest its files were verified against when it was installed, and each file's ``FileFacts``
/// as they were when it was hashed (or vouched for). Kept as `package-index/<folder>.verified`
/// beside the revision's delta index and swept with it; written once the swap has committed, out
/// of the time a delta update is waited for (a crash in between only loses them).
///
/// A missing, unreadable or damaged file is never an error: the next delta then hashes the reused
/// files. The facts vouch only against accidental change and writers that cannot also write this
/// file (section 6); `storybridge verify` never uses them.
package struct VerifiedFacts: Sendable, Hashable {
    package var manifestHash: String
    /// Path in the revision → its facts.
    package var files: [String: FileFacts]

    package init(manifestHash: String, files: [String: FileFacts]) {
        self.manifestHash = manifestHash
        self.files = files
    }

    /// The ending of a facts file in `package-index/`.
    package static let suffix = ".verified"

    /// The facts file of the revision in presentation folder `folderName`.
    package static func file(forFolder folderName: String, in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent("package-index").appendingPathComponent(folderName + suffix)
    }

    /// The facts of the revision in `folderName`; nil when there are none or they cannot be read.
    /// The file is `{"files":[{"ctimeNs","dev","ino","mtimeNs","path","size"},…],"manifestHash"}`,
    /// read and written with the host's own JSON reader and writer (``JSONParser``,
    /// ``JSONWriter``): Foundation's coders took most of a one-slide delta's facts work
    /// (docs/BENCHMARKS.md, the one-slide delta's cost).
    package static func load(forFolder folderName: String, in directory: DataDirectory) -> VerifiedFacts? {
        guard let data = try? Data(contentsOf: file(forFolder: folderName, in: directory)),
            let stored = try? JSONValue.parse(data), let manifestHash = stored["manifestHash"]?.stringValue,
            let list = stored["files"]?.arrayValue
        else { return nil }
        var files: [String: FileFacts] = [:]
        files.reserveCapacity(list.count)
        for entry in list {
            guard let path = entry["path"]?.stringValue, let size = entry["size"]?.exactInteger,
                let dev = entry["dev"]?.exactInteger, let ino = entry["ino"]?.exactInteger,
                let ctimeNs = entry["ctimeNs"]?.exactInteger, let mtimeNs = entry["mtimeNs"]?.exactInteger, dev >= 0, ino >= 0
            else { return nil }
            files[path] = FileFacts(size: Int64(size), dev: UInt64(dev), ino: UInt64(ino), ctimeNs: Int64(ctimeNs), mtimeNs: Int64(mtimeNs))
        }
        return VerifiedFacts(manifestHash: manifestHash, files: files)
    }

    /// Writes the facts of the revision in `folderName` to a temporary name, then renames it into place.
    package func save(forFolder folderName: String, in directory: DataDirectory) throws {
        let target = Self.file(forFolder: folderName, in: directory)
        let temporary = target.appendingPathExtension("tmp")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(encoded()).write(to: temporary)
        guard rename(temporary.path, target.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }

    /// The file's bytes (``load(forFolder:in:)`` says the form), files in path order.
    func encoded() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64 + files.count * 160)
        output.append(contentsOf: #"{"files":["#.utf8)
        for (index, (path, facts)) in files.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(
                contentsOf: #"{"ctimeNs":\#(facts.ctimeNs),"dev":\#(facts.dev),"ino":\#(facts.ino),"mtimeNs":\#(facts.mtimeNs),"path":"#
                    .utf8)
            JSONWriter.appendString(path, to: &output)
            output.append(contentsOf: #","size":\#(facts.size)}"#.utf8)
        }
        output.append(contentsOf: #"],"manifestHash":"#.utf8)
        JSONWriter.appendString(manifestHash, to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Removes the facts of the revision in `folderName`.
    package static func remove(forFolder folderName: String, in directory: DataDirectory) {
        unlink(file(forFolder: folderName, in: directory).path)
    }

    /// Runs `operation`, one of storybridge's own that links or unlinks names of installed inodes
    /// (a ready tree built or removed, a replaced folder or a staging leftover swept), and keeps
    /// the facts of `folders` valid across it: each file whose facts still hold *before* the
    /// operation (dev, inode, size, change and modification time) takes its new change time after
    /// it when its dev, inode, size and modification time are unchanged. A file whose facts did
    /// not hold before loses them (the next delta hashes it). Two `fstatat` per file of a folder
    /// with facts; folders without facts cost nothing.
    package static func preserving<Value>(
        folders: [String], in directory: DataDirectory, _ operation: () throws -> Value
    ) rethrows -> Value {
        var held: [(folder: String, facts: VerifiedFacts, valid: [String: FileFacts])] = []
        for folder in Set(folders).sorted() {
            guard let facts = load(forFolder: folder, in: directory) else { continue }
            let path = directory.presentations.appendingPathComponent(folder).path
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var valid: [String: FileFacts] = [:]
            for (name, expected) in facts.files where FileFacts.of(name, in: descriptor) == expected {
                valid[name] = expected
            }
            held.append((folder, facts, valid))
        }
        guard !held.isEmpty else { return try operation() }
        let value = try operation()
        for (folder, facts, valid) in held {
            let path = directory.presentations.appendingPathComponent(folder).path
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var refreshed = VerifiedFacts(manifestHash: facts.manifestHash, files: [:])
            refreshed.files.reserveCapacity(valid.count)
            for (name, before) in valid {
                if let after = FileFacts.of(name, in: descriptor), after.sameContentStamp(as: before) { refreshed.files[name] = after }
            }
            if refreshed != facts { try? refreshed.save(forFolder: folder, in: directory) }
        }
        return value
    }
}

extension JSONValue {
    /// An integer written as one (never a fraction or an exponent): the facts' numbers.
    fileprivate var exactInteger: Int? {
        if case .int(let value) = self { return value }
        return nil
    }
}
