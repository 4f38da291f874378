import Crypto
import Foundation

/// Unpacks a presentation package into a new folder, safely: every entry is checked before any
/// byte is written, sizes and compression ratios are watched while streaming, and on any error
/// the folder is removed, so nothing half-unpacked is left.
package struct PackageExtractor: Sendable {
    /// What an extraction produced.
    package struct Result: Sendable {
        package var folder: URL
        package var files: Int
        package var bytes: Int64
        /// Each file written, by its path in the package, with the SHA-256 of the bytes written
        /// (an entry whose CRC-32 failed throws, so these are the entry's bytes) and its facts
        /// (`fstat`) just after the last write; only when the extraction was asked to hash.
        package var hashed: [String: HashedFile] = [:]

        package init(folder: URL, files: Int, bytes: Int64, hashed: [String: HashedFile] = [:]) {
            self.folder = folder
            self.files = files
            self.bytes = bytes
            self.hashed = hashed
        }
    }

    /// Progress of a long extraction: bytes written so far, of the total the package declares.
    package typealias Progress = @Sendable (_ done: Int64, _ total: Int64) -> Void

    package var limits: PackageLimits

    package init(limits: PackageLimits = PackageLimits()) {
        self.limits = limits
    }

    /// Checks the package's entries without writing anything; returns the declared total size.
    @discardableResult
    package func validate(zip: URL) throws(PackageError) -> (entries: Int, declaredBytes: Int64) {
        let archive = try ZipArchive(path: zip.path)
        let summary = try check(archive)
        return (summary.entries.count, summary.declaredBytes)
    }

    /// Checks the package's entries without writing anything; returns the paths of its files.
    /// `requiresStartSlide` false accepts a zip without `index.html` (a Veeva key message, a zip of zips).
    package func filePaths(zip: URL, requiresStartSlide: Bool = true) throws(PackageError) -> [String] {
        let archive = try ZipArchive(path: zip.path)
        return try check(archive, requiresStartSlide: requiresStartSlide).entries.filter { !$0.isDirectory }.map(\.path)
    }

    /// ``filePaths(zip:)`` of a zip held in memory (`name` says which in errors): the same
    /// reader and the same checks, without the zip written to a file first.
    package func filePaths(zipBytes: Data, name: String) throws(PackageError) -> [String] {
        let archive = try ZipArchive(bytes: zipBytes, name: name)
        return try check(archive).entries.filter { !$0.isDirectory }.map(\.path)
    }

    /// Unpacks `zip` into `destination`, which must not exist yet. `requiresStartSlide` false
    /// accepts a zip without `index.html`: part of a package (the changed entries of a delta
    /// update, whose whole listing was checked before). A file is never written over one that
    /// exists. An error while writing removes `destination`. `hashing`: each file's SHA-256 is
    /// taken from the bytes as they are written (``Result/hashed``), so a tree checked against a
    /// manifest need not read them back.
    package func extract(
        zip: URL, to destination: URL, progress: Progress? = nil, requiresStartSlide: Bool = true, hashing: Bool = false
    ) throws(PackageError) -> Result {
        let archive = try ZipArchive(path: zip.path)
        let summary = try check(archive, requiresStartSlide: requiresStartSlide)
        do {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        } catch {
            throw .writeFailed(path: destination.path, reason: SystemProblem(error).description)
        }
        do {
            let result = try unpack(archive, summary: summary, into: destination, progress: progress, hashing: hashing)
            return result
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    private struct Summary {
        var entries: [ZipEntry]
        var declaredBytes: Int64
    }

    private func check(_ archive: ZipArchive, requiresStartSlide: Bool = true) throws(PackageError) -> Summary {
        let declaredCount = try archive.entryCount()
        guard declaredCount <= limits.maxEntries else { throw .tooManyEntries(limit: limits.maxEntries) }
        var entries: [ZipEntry] = []
        var seen: [String: Bool] = [:]  // path → isDirectory
        var declared: Int64 = 0
        try archive.forEachEntry { (entry: ZipEntry) throws(PackageError) in
            guard entries.count < limits.maxEntries else { throw .tooManyEntries(limit: limits.maxEntries) }
            if let previous = seen[entry.path] {
                // A folder may be listed once explicitly and implied by its files; anything else is a clash.
                if !(previous && entry.isDirectory) { throw .duplicateEntry(entry.path) }
            }
            // A file may not sit where another entry needs a folder, nor the other way round.
            // Paths are normalised (`ZipArchive.safePath`: no empty segment, no trailing `/`), so
            // a parent is everything before a `/`; no `NSString` per entry (a full package has thousands).
            var parent = Substring(entry.path)
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if seen[String(parent)] == false { throw .duplicateEntry(String(parent)) }
            }
            seen[entry.path] = entry.isDirectory
            declared += max(entry.uncompressedSize, 0)
            guard declared <= limits.maxUncompressedBytes else { throw .tooLarge(limitBytes: limits.maxUncompressedBytes) }
            entries.append(entry)
        }
        guard !requiresStartSlide || seen[Presentation.startSlide] == false else { throw .missingIndex }
        return Summary(entries: entries, declaredBytes: declared)
    }

    private func unpack(
        _ archive: ZipArchive, summary: Summary, into destination: URL, progress: Progress?, hashing: Bool
    ) throws(PackageError) -> Result {
        var budget = limits.maxUncompressedBytes
        var done: Int64 = 0
        var files = 0
        var createdFolders: Set<String> = [""]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        let total = summary.declaredBytes
        var lastReport: Int64 = -1
        var hashed: [String: HashedFile] = [:]

        func ensureFolder(_ relative: String) throws(PackageError) {
            guard !createdFolders.contains(relative) else { return }
            let folder = destination.appendingPathComponent(relative)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .writeFailed(path: relative, reason: SystemProblem(error).description)
            }
            var path = relative
            while !path.isEmpty {
                createdFolders.insert(path)
                path = (path as NSString).deletingLastPathComponent
            }
        }

        try archive.forEachEntry { (entry: ZipEntry) throws(PackageError) in
            if entry.isDirectory {
                try ensureFolder(entry.path)
                return
            }
            try ensureFolder((entry.path as NSString).deletingLastPathComponent)
            let file = destination.appendingPathComponent(entry.path).path
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else {
                throw .writeFailed(path: entry.path, reason: String(cString: strerror(errno)))
            }
            defer { close(descriptor) }
            var hasher = hashing ? SHA256() : nil
            _ = try archive.extractCurrent(
                entry, to: descriptor, limits: limits, budget: &budget, buffer: buffer
            ) { chunk in
                hasher?.update(bufferPointer: chunk)
                done += Int64(chunk.count)
                if let progress, done - lastReport >= (1 << 20) || done == total {
                    lastReport = done
                    progress(done, max(total, done))
                }
            }
            if let hasher {
                var status = stat()
                guard fstat(descriptor, &status) == 0 else {
                    throw .writeFailed(path: entry.path, reason: String(cString: strerror(errno)))
                }
                HashCounter.hashed(file)
                hashed[entry.path] = HashedFile(sha256: hasher.finalize().hexDigits, facts: FileFacts(status))
            }
            files += 1
        }
        progress?(done, max(total, done))
        return Result(folder: destination, files: files, bytes: done, hashed: hashed)
    }
}
