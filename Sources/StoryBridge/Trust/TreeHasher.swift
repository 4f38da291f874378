import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hashes the files of a tree with SHA-256, on ``BlockingIO``'s pool, `threads` files at a time
/// (largest first, so one big film does not finish last alone). Each file is read with `read(2)`
/// into a 1 MiB buffer, never mapped: a file truncated under a mapping would kill the host.
///
/// A tree may hold only regular files and folders: a symbolic link, FIFO, socket or device is
/// refused (``TrustFailure/unexpectedEntry(path:kind:)``), since a link could point anywhere.
package struct TreeHasher: Sendable {
    /// How many files are hashed at once.
    package var threads: Int

    /// `threads` defaults to the cores, at most 4 (docs/design/TRUST.md 3.1).
    package init(threads: Int = min(ProcessInfo.processInfo.activeProcessorCount, 4)) {
        self.threads = max(1, threads)
    }

    /// The regular files under `root` (paths relative to it with `/`, sorted by their UTF-8 bytes)
    /// and their sizes, by `lstat` only: no file is read.
    package static func listing(of root: URL) throws(TrustFailure) -> [(path: String, size: Int64)] {
        try factsListing(of: root).map { ($0.path, $0.facts.size) }
    }

    /// As ``listing(of:)``, with what each file's `lstat` said (``FileFacts``).
    package static func factsListing(of root: URL) throws(TrustFailure) -> [(path: String, facts: FileFacts)] {
        var files: [(path: String, facts: FileFacts)] = []
        let descriptor = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: ".", reason: String(cString: strerror(errno))) }
        try walk(descriptor, relative: "", into: &files)
        files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return files
    }

    /// Lists `folder` (open as `descriptor`, closed here) and what it holds, depth first, with
    /// `readdir` and `fstatat` relative to each folder's descriptor (Foundation's directory
    /// listing took a third of a one-slide delta's tree check, docs/BENCHMARKS.md).
    private static func walk(_ descriptor: Int32, relative: String, into files: inout [(path: String, facts: FileFacts)])
        throws(TrustFailure)
    {
        guard let listing = fdopendir(descriptor) else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unreadable(path: relative.isEmpty ? "." : relative, reason: reason)
        }
        defer { closedir(listing) }
        while true {
            errno = 0
            guard let entry = readdir(listing) else {
                guard errno == 0 else {
                    throw .unreadable(path: relative.isEmpty ? "." : relative, reason: String(cString: strerror(errno)))
                }
                return
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            var status = stat()
            guard fstatat(dirfd(listing), name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw .unreadable(path: relativePath, reason: String(cString: strerror(errno)))
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG: files.append((relativePath, FileFacts(status)))
            case S_IFDIR:
                let child = openat(dirfd(listing), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { throw .unreadable(path: relativePath, reason: String(cString: strerror(errno))) }
                try walk(child, relative: relativePath, into: &files)
            case S_IFLNK: throw .unexpectedEntry(path: relativePath, kind: "a symbolic link")
            case S_IFIFO: throw .unexpectedEntry(path: relativePath, kind: "a FIFO")
            case S_IFSOCK: throw .unexpectedEntry(path: relativePath, kind: "a socket")
            default: throw .unexpectedEntry(path: relativePath, kind: "a device")
            }
        }
    }

    /// The size and SHA-256 (hex) of the file at `path`, read once from start to end. Errors name
    /// the file `name` (its path in the tree), or `path`.
    static func hashFile(at path: String, naming name: String? = nil) throws(TrustFailure) -> (size: Int64, sha256: String) {
        HashCounter.hashed(path)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: name ?? path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        #if canImport(Glibc)
            _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: name ?? path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (size, hasher.finalize().hexDigits)
    }

    /// Every regular file of the tree at `root` with its size and SHA-256, sorted by path.
    package func hash(tree root: URL) async throws(TrustFailure) -> [ManifestFile] {
        let listing = try await BlockingIO.run { () throws(TrustFailure) in try Self.listing(of: root) }
        return try await hash(files: listing.map(\.path), in: root)
    }

    /// The size and SHA-256 of each of `paths` (relative to `root`), sorted by path.
    package func hash(files paths: [String], in root: URL) async throws(TrustFailure) -> [ManifestFile] {
        // Largest first, each to the bucket with the fewest bytes so far.
        let sized = paths.map { path -> (String, Int64) in
            var status = stat()
            return (path, lstat(root.path + "/" + path, &status) == 0 ? Int64(status.st_size) : 0)
        }.sorted { $0.1 > $1.1 }
        var buckets = Array(repeating: (bytes: Int64(0), paths: [String]()), count: min(threads, max(1, sized.count)))
        for (path, size) in sized {
            let index = buckets.indices.min { buckets[$0].bytes < buckets[$1].bytes }!
            buckets[index].bytes += size
            buckets[index].paths.append(path)
        }
        let results = await withTaskGroup(of: Result<[ManifestFile], TrustFailure>.self) { group in
            for bucket in buckets {
                let rootPath = root.path
                group.addTask {
                    await BlockingIO.run { () -> Result<[ManifestFile], TrustFailure> in
                        Result { () throws(TrustFailure) in
                            var files: [ManifestFile] = []
                            for path in bucket.paths {
                                let (size, sha256) = try Self.hashFile(at: rootPath + "/" + path, naming: path)
                                files.append(ManifestFile(path: path, size: size, sha256: sha256))
                            }
                            return files
                        }
                    }
                }
            }
            var all: [Result<[ManifestFile], TrustFailure>] = []
            for await result in group { all.append(result) }
            return all
        }
        var files: [ManifestFile] = []
        for result in results { files += try result.get() }
        return files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// As ``hash(tree:)``, for callers already on a blocking thread (an install's closure): the
    /// files are hashed by `threads` threads of Dispatch's concurrent pool.
    package func hashSync(tree root: URL) throws(TrustFailure) -> [ManifestFile] {
        try hashSync(files: try Self.listing(of: root).map(\.path), in: root)
    }

    /// As ``hash(files:in:)``, for callers already on a blocking thread: the size and SHA-256 of
    /// each of `listing` (paths relative to `root`), sorted by path.
    package func hashSync(files listing: [String], in root: URL) throws(TrustFailure) -> [ManifestFile] {
        let count = min(threads, max(1, listing.count))
        let results = Mutex([Result<[ManifestFile], TrustFailure>](repeating: .success([]), count: count))
        DispatchQueue.concurrentPerform(iterations: count) { bucket in
            var files: [ManifestFile] = []
            let result = Result { () throws(TrustFailure) -> [ManifestFile] in
                for index in stride(from: bucket, to: listing.count, by: count) {
                    let path = listing[index]
                    let (size, sha256) = try Self.hashFile(at: root.path + "/" + path, naming: path)
                    files.append(ManifestFile(path: path, size: size, sha256: sha256))
                }
                return files
            }
            results.withLock { $0[bucket] = result }
        }
        var files: [ManifestFile] = []
        for result in results.withLock({ $0 }) { files += try result.get() }
        return files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// How the hashed `files` of a tree (in any order) differ from `manifest`'s; each finding's
    /// list in path order. `paths`: the manifest's ``ManifestPaths`` when made ahead.
    package static func difference(
        of files: [ManifestFile], from manifest: PackageManifest, paths: ManifestPaths? = nil
    ) -> TreeDifference {
        let positions = (paths ?? ManifestPaths(manifest)).positions
        var difference = TreeDifference()
        // Which listed files the tree has, by position: a file of the tree named twice counts once.
        var present = [Bool](repeating: false, count: manifest.files.count)
        var presentCount = 0
        for file in files {
            guard let position = positions[file.path] else {
                difference.added.append(file.path)
                continue
            }
            if !present[position] {
                present[position] = true
                presentCount += 1
            }
            let listed = manifest.files[position]
            if listed.size != file.size || listed.sha256 != file.sha256 {
                difference.changed.append(.init(path: file.path, expected: listed, actualSize: file.size, actualSHA256: file.sha256))
            }
        }
        if presentCount != positions.count {
            difference.missing = manifest.files.enumerated().compactMap { position, file in
                positions[file.path] == position && !present[position] ? file.path : nil
            }
        }
        if !difference.isEmpty {
            difference.added.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            difference.changed.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        }
        return difference
    }

    /// Hashes the tree at `root` and refuses it unless its files are exactly `manifest`'s.
    package func verify(tree root: URL, against manifest: PackageManifest) async throws(TrustFailure) {
        let difference = Self.difference(of: try await hash(tree: root), from: manifest)
        guard difference.isEmpty else { throw .treeDiffers(difference) }
    }
}

/// Counts the files ``TreeHasher`` reads, under folders a test watches (a test hook: with no
/// folder watched, one lock per file hashed and nothing kept).
package enum HashCounter {
    private static let counts = Mutex<[String: Int]>([:])

    /// Starts counting the files hashed under `folder` (from 0).
    package static func watch(_ folder: URL) {
        counts.withLock { $0[folder.path.hasSuffix("/") ? folder.path : folder.path + "/"] = 0 }
    }

    /// How many files were hashed under `folder` since ``watch(_:)``.
    package static func count(under folder: URL) -> Int {
        counts.withLock { $0[folder.path.hasSuffix("/") ? folder.path : folder.path + "/"] ?? 0 }
    }

    static func hashed(_ path: String) {
        counts.withLock { counts in
            guard !counts.isEmpty else { return }
            for key in counts.keys where path.hasPrefix(key) { counts[key]! += 1 }
        }
    }
}
