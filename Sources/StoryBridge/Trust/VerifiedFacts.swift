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

/// One file of a revision's verified facts: its ``FileFacts`` when it was hashed (or vouched for)
/// and the SHA-256 (lowercase hex) its trust record lists for it, which the facts carry so a delta
/// update never parses the stored manifest to vouch for a reused file.
package struct VerifiedFile: Sendable, Hashable {
    package var facts: FileFacts
    package var sha256: String

    package init(facts: FileFacts, sha256: String) {
        self.facts = facts
        self.sha256 = sha256
    }
}

/// The verified facts of an installed revision (docs/design/TRUST.md 2.3.1): the hash of the
/// manifest its files were verified against when it was installed, and each file's ``FileFacts``
/// as they were when it was hashed (or vouched for), with the file's hash in that manifest. Kept
/// as `package-index/<folder>.verified` beside the revision's delta index and swept with it;
/// written once the swap has committed, out of the time a delta update is waited for (a crash in
/// between only loses them).
///
/// A missing, unreadable, damaged or older-form file is never an error: the next delta then
/// hashes the reused files. The facts vouch only against accidental change and writers that
/// cannot also write this file (section 6); `storybridge verify` never uses them.
package struct VerifiedFacts: Sendable, Hashable {
    package var manifestHash: String
    /// Path in the revision → its facts and hash.
    package var files: [String: VerifiedFile]

    package init(manifestHash: String, files: [String: VerifiedFile]) {
        self.manifestHash = manifestHash
        self.files = files
    }

    /// The ending of a facts file in `package-index/`.
    package static let suffix = ".verified"

    /// The first bytes of a facts file in the present form (the JSON form before it had no hashes,
    /// and reads as missing).
    static let magic = Array("storybridge-verified-facts 2\n".utf8)

    /// The facts file of the revision in presentation folder `folderName`.
    package static func file(forFolder folderName: String, in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent("package-index").appendingPathComponent(folderName + suffix)
    }

    /// The facts of the revision in `folderName`; nil when there are none or they cannot be read.
    package static func load(forFolder folderName: String, in directory: DataDirectory) -> VerifiedFacts? {
        guard let data = try? Data(contentsOf: file(forFolder: folderName, in: directory)) else { return nil }
        return decode(data)
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

    /// The file's bytes, files in path order: ``magic``, then the manifest hash and each file as
    /// length-prefixed UTF-8 and little-endian integers (`FactsBytes`). A fixed binary form, read
    /// with no parser: the JSON form took a one-slide delta 2 to 7 ms to read beside its fetch,
    /// with the stored manifest parsed for the hashes (docs/BENCHMARKS.md, the one-slide delta).
    func encoded() -> [UInt8] {
        var output = FactsBytes.Writer(capacity: Self.magic.count + 80 + files.count * 200)
        output.append(Self.magic)
        output.append(string: manifestHash)
        output.append(UInt64(files.count))
        for (path, file) in files.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            output.append(string: path)
            output.append(string: file.sha256)
            output.append(UInt64(bitPattern: file.facts.size))
            output.append(file.facts.dev)
            output.append(file.facts.ino)
            output.append(UInt64(bitPattern: file.facts.ctimeNs))
            output.append(UInt64(bitPattern: file.facts.mtimeNs))
        }
        return output.bytes
    }

    /// The facts in `data` (``encoded()``'s form); nil for any other bytes, a short or damaged file
    /// included.
    static func decode(_ data: Data) -> VerifiedFacts? {
        data.withUnsafeBytes { raw -> VerifiedFacts? in
            var reader = FactsBytes.Reader(raw)
            guard reader.take(magic), let manifestHash = reader.string(), let count = reader.integer(),
                count <= UInt64(raw.count)
            else { return nil }
            var files: [String: VerifiedFile] = [:]
            files.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let path = reader.string(), let sha256 = reader.string(), let size = reader.integer(),
                    let dev = reader.integer(), let ino = reader.integer(), let ctime = reader.integer(), let mtime = reader.integer()
                else { return nil }
                let facts = FileFacts(
                    size: Int64(bitPattern: size), dev: dev, ino: ino, ctimeNs: Int64(bitPattern: ctime), mtimeNs: Int64(bitPattern: mtime))
                files[path] = VerifiedFile(facts: facts, sha256: sha256)
            }
            guard reader.isAtEnd else { return nil }
            return VerifiedFacts(manifestHash: manifestHash, files: files)
        }
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
    ///
    /// The facts files are removed while the operation runs and written again after it, also when
    /// it throws: a process killed in between (or an operation that fails half done) leaves no
    /// facts rather than facts the operation made stale, so facts on disk never name a change time
    /// their file no longer has because of storybridge's own work (docs/design/TRUST.md 2.3.1).
    package static func preserving<Value>(
        folders: [String], in directory: DataDirectory, _ operation: () throws -> Value
    ) rethrows -> Value {
        var held: [(folder: String, facts: VerifiedFacts, valid: [String: VerifiedFile])] = []
        for folder in Set(folders).sorted() {
            guard let facts = load(forFolder: folder, in: directory) else { continue }
            let path = directory.presentations.appendingPathComponent(folder).path
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var valid: [String: VerifiedFile] = [:]
            for (name, expected) in facts.files where FileFacts.of(name, in: descriptor) == expected.facts {
                valid[name] = expected
            }
            held.append((folder, facts, valid))
        }
        guard !held.isEmpty else { return try operation() }
        for (folder, _, _) in held { remove(forFolder: folder, in: directory) }
        defer {
            for (folder, facts, valid) in held {
                if let after = refreshed(facts, valid: valid, folder: folder, in: directory) {
                    try? after.save(forFolder: folder, in: directory)
                }
            }
        }
        return try operation()
    }

    /// The facts of `folder` after an operation: those of `valid` (its files whose `facts` held
    /// before it) whose inode, size and modification time are unchanged, with their change time
    /// now. Nil when the folder cannot be opened (removed by the operation).
    private static func refreshed(
        _ facts: VerifiedFacts, valid: [String: VerifiedFile], folder: String, in directory: DataDirectory
    ) -> VerifiedFacts? {
        let path = directory.presentations.appendingPathComponent(folder).path
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var refreshed = VerifiedFacts(manifestHash: facts.manifestHash, files: [:])
        refreshed.files.reserveCapacity(valid.count)
        for (name, before) in valid {
            if let after = FileFacts.of(name, in: descriptor), after.sameContentStamp(as: before.facts) {
                refreshed.files[name] = VerifiedFile(facts: after, sha256: before.sha256)
            }
        }
        return refreshed
    }
}
