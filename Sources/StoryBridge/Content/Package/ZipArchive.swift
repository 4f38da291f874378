import CMinizip
import Foundation

/// One entry of a zip's central directory, checked for safety.
struct ZipEntry: Sendable {
    /// The entry's path inside the archive, `/`-separated, without a trailing `/`.
    var path: String
    var isDirectory: Bool
    var compressedSize: Int64
    var uncompressedSize: Int64
}

/// A zip file opened for reading with the system minizip.
final class ZipArchive {
    private let handle: unzFile
    let path: String
    /// The bytes minizip reads when the archive was opened from memory (kept alive with it).
    private let source: ZipMemorySource?

    /// Opens `path`, telling "not a zip" apart from "a damaged zip".
    init(path: String) throws(PackageError) {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: SystemProblem(errno: errno).description) }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw .unreadable(path: path, reason: SystemProblem.isAFolder.description)
        }
        let magic = (try? file.read(upToCount: 4)) ?? Data()
        try? file.close()
        guard magic.count == 4, magic[0] == 0x50, magic[1] == 0x4B else { throw .notAZip(path: path) }
        guard let opened = unzOpen64(path) else {
            throw .corrupt(path: path, reason: "its central directory cannot be read")
        }
        handle = opened
        source = nil
    }

    /// Opens a zip held in memory (`name` says which in errors), with the same reader as a file:
    /// minizip over `bytes` instead of over a descriptor.
    init(bytes: Data, name: String) throws(PackageError) {
        path = name
        guard bytes.count >= 4, bytes[bytes.startIndex] == 0x50, bytes[bytes.startIndex + 1] == 0x4B else {
            throw .notAZip(path: name)
        }
        let source = ZipMemorySource(bytes)
        var functions = source.functions
        guard let opened = unzOpen2_64(name, &functions) else {
            throw .corrupt(path: name, reason: "its central directory cannot be read")
        }
        handle = opened
        self.source = source
    }

    deinit {
        unzClose(handle)
    }

    /// The number of entries the central directory declares.
    func entryCount() throws(PackageError) -> Int {
        var info = unz_global_info64()
        guard unzGetGlobalInfo64(handle, &info) == UNZ_OK else {
            throw .corrupt(path: path, reason: "unreadable global header")
        }
        return Int(info.number_entry)
    }

    /// Calls `body` for each entry, positioned on it, after checking its name and type.
    func forEachEntry(_ body: (ZipEntry) throws(PackageError) -> Void) throws(PackageError) {
        var status = unzGoToFirstFile(handle)
        while status == UNZ_OK {
            let entry = try currentEntry()
            try body(entry)
            status = unzGoToNextFile(handle)
        }
        guard status == UNZ_END_OF_LIST_OF_FILE else {
            throw .corrupt(path: path, reason: "central directory ends early (code \(status))")
        }
    }

    private func currentEntry() throws(PackageError) -> ZipEntry {
        var info = unz_file_info64()
        var nameBuffer = [CChar](repeating: 0, count: 4097)
        guard unzGetCurrentFileInfo64(handle, &info, &nameBuffer, 4096, nil, 0, nil, 0) == UNZ_OK else {
            throw .corrupt(path: path, reason: "unreadable entry header")
        }
        let nameBytes = nameBuffer.prefix(Int(min(info.size_filename, 4096))).map { UInt8(bitPattern: $0) }
        guard let rawName = String(validating: nameBytes, as: UTF8.self) else {
            throw .nonUTF8Name(hexBytes: nameBytes.prefix(32).map { String(format: "%02x", $0) }.joined())
        }
        if info.flag & 1 != 0 {
            throw .unsupportedEntry(name: rawName, reason: "encrypted entries are not supported")
        }
        let madeOnUnix = (info.version >> 8) == 3
        let mode = (info.external_fa >> 16) & 0o170000
        if madeOnUnix, mode == 0o120000 {
            throw .unsafeEntry(name: rawName, reason: "symbolic links are not allowed in packages")
        }
        if madeOnUnix, mode != 0, mode != 0o100000, mode != 0o040000 {
            throw .unsupportedEntry(name: rawName, reason: "only regular files and folders are allowed")
        }
        let isDirectory = rawName.hasSuffix("/") || (madeOnUnix && mode == 0o040000)
        let path = try Self.safePath(rawName)
        return ZipEntry(
            path: path, isDirectory: isDirectory, compressedSize: Int64(info.compressed_size),
            uncompressedSize: Int64(info.uncompressed_size))
    }

    /// Whether `name` is a safe relative path already in the form ``safePath(_:)`` gives (what a
    /// manifest's paths must be): one pass over the bytes of an ASCII name, ``safePath(_:)``'s
    /// own answer for any other. A manifest of a few hundred files asked this of every path with
    /// ``safePath(_:)`` alone, most of the cost of reading it (docs/BENCHMARKS.md).
    package static func isCanonicalSafePath(_ name: String) -> Bool {
        var segmentLength = 0
        var segmentDots = 0
        var bytes = 0
        for byte in name.utf8 {
            bytes += 1
            switch byte {
            case 0x80...: return (try? safePath(name)) == name
            case 0, UInt8(ascii: "\\"): return false
            case UInt8(ascii: ":") where bytes == 2: return false
            case UInt8(ascii: "/"):
                // An empty, "." or ".." segment (also a leading or doubled slash).
                guard segmentLength > 0, segmentDots != segmentLength || segmentLength > 2 else { return false }
                segmentLength = 0
                segmentDots = 0
            default:
                segmentLength += 1
                if byte == UInt8(ascii: ".") { segmentDots += 1 }
                guard segmentLength <= 255 else { return false }
            }
        }
        return segmentLength > 0 && (segmentDots != segmentLength || segmentLength > 2)
    }

    /// The entry name as a relative path that cannot leave the target folder.
    static func safePath(_ name: String) throws(PackageError) -> String {
        if name.isEmpty { throw .unsafeEntry(name: name, reason: "empty name") }
        if name.contains("\0") { throw .unsafeEntry(name: name, reason: "NUL byte in name") }
        if name.contains("\\") { throw .unsafeEntry(name: name, reason: "backslash in name") }
        if name.hasPrefix("/") { throw .unsafeEntry(name: name, reason: "absolute path") }
        if name.count >= 2, name.dropFirst().first == ":" { throw .unsafeEntry(name: name, reason: "drive letter") }
        var trimmed = Substring(name)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        var segments: [Substring] = []
        for segment in trimmed.split(separator: "/", omittingEmptySubsequences: false) {
            if segment == ".." { throw .unsafeEntry(name: name, reason: "'..' escapes the package folder") }
            if segment == "." || segment.isEmpty { throw .unsafeEntry(name: name, reason: "empty or '.' path segment") }
            if segment.utf8.count > 255 { throw .unsafeEntry(name: name, reason: "path segment longer than 255 bytes") }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    /// Streams the current entry's bytes into `output`, checking the limits as it goes; returns the
    /// bytes written. `written` receives each chunk once it is written.
    func extractCurrent(
        _ entry: ZipEntry, to output: Int32, limits: PackageLimits, budget: inout Int64,
        buffer: UnsafeMutableRawBufferPointer, written chunkWritten: (UnsafeRawBufferPointer) -> Void
    ) throws(PackageError) -> Int64 {
        guard unzOpenCurrentFile(handle) == UNZ_OK else {
            throw .corrupt(path: path, reason: "entry '\(entry.path)' cannot be opened")
        }
        var written: Int64 = 0
        var closed = false
        defer { if !closed { unzCloseCurrentFile(handle) } }
        while true {
            let count = unzReadCurrentFile(handle, buffer.baseAddress, UInt32(buffer.count))
            if count == 0 { break }
            guard count > 0 else {
                throw .corrupt(path: path, reason: "entry '\(entry.path)' cannot be inflated (code \(count))")
            }
            written += Int64(count)
            if written > budget { throw .tooLarge(limitBytes: limits.maxUncompressedBytes) }
            if written > limits.ratioCheckAfterBytes {
                let ratio = written / max(entry.compressedSize, 1)
                if ratio > Int64(limits.maxCompressionRatio) {
                    throw .suspiciousRatio(name: entry.path, ratio: Int(ratio), limit: limits.maxCompressionRatio)
                }
            }
            var offset = 0
            while offset < Int(count) {
                let done = write(output, buffer.baseAddress! + offset, Int(count) - offset)
                if done < 0 {
                    if errno == EINTR { continue }
                    throw .writeFailed(path: entry.path, reason: String(cString: strerror(errno)))
                }
                offset += done
            }
            chunkWritten(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)]))
        }
        closed = true
        let status = unzCloseCurrentFile(handle)
        if status == UNZ_CRCERROR { throw .corrupt(path: path, reason: "entry '\(entry.path)' fails its CRC check") }
        guard status == UNZ_OK else { throw .corrupt(path: path, reason: "entry '\(entry.path)' (code \(status))") }
        budget -= written
        return written
    }
}
