import Foundation
import StoryBridge

/// One entry of a zip's central directory as the delta path needs it: what identifies its
/// content (name, CRC-32, size) and where its bytes are (local header offset).
struct ZipDirectoryEntry: Sendable, Hashable, Codable {
    /// The name as stored (a folder ends with `/`).
    var name: String
    var crc32: UInt32
    var method: UInt16
    var flags: UInt16
    var compressedSize: Int64
    var uncompressedSize: Int64
    /// Where the entry's local header starts in the archive.
    var localHeaderOffset: Int64
    /// The whole central-directory record, kept to write a smaller archive of changed entries.
    var record: Data

    var isDirectory: Bool { name.hasSuffix("/") }
}

/// A zip's central directory read from bytes (the tail of a blob, or a file), without ZIP64.
/// Refuses what a remote read cannot handle: ZIP64 markers, compression methods other than
/// stored (0) and deflate (8), multi-disk archives, records that do not parse.
struct ZipDirectory: Sendable {
    /// The size of an end-of-central-directory record without its comment.
    static let endRecordSize = 22
    /// The most bytes the end record (with the longest comment) can take at the end of a zip.
    static let maxTailSize = endRecordSize + 0xFFFF

    /// Where the central directory lies in the archive, from its end record.
    struct Location: Sendable, Hashable {
        var offset: Int64
        var size: Int64
        var entryCount: Int
    }

    var entries: [ZipDirectoryEntry]
    var location: Location

    /// Finds the end record in `tail`, the last bytes of an archive that starts `tailStart`
    /// bytes into it.
    static func locate(tail: Data, tailStart: Int64) throws(DeltaFallback) -> Location {
        let bytes = [UInt8](tail)
        guard bytes.count >= endRecordSize else { throw .unreadableArchive("shorter than an end record") }
        var position = bytes.count - endRecordSize
        while position >= 0 {
            if bytes.readUInt32(at: position) == 0x0605_4b50,
                position + endRecordSize + Int(bytes.readUInt16(at: position + 20)) == bytes.count
            {
                break
            }
            position -= 1
        }
        guard position >= 0 else { throw .unreadableArchive("no end-of-central-directory record") }
        if position >= 20, bytes.readUInt32(at: position - 20) == 0x0706_4b50 {
            throw .unreadableArchive("ZIP64")
        }
        let disk = bytes.readUInt16(at: position + 4)
        let directoryDisk = bytes.readUInt16(at: position + 6)
        let onDisk = bytes.readUInt16(at: position + 8)
        let count = bytes.readUInt16(at: position + 10)
        let size = bytes.readUInt32(at: position + 12)
        let offset = bytes.readUInt32(at: position + 16)
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw .unreadableArchive("ZIP64") }
        guard disk == 0, directoryDisk == 0, onDisk == count else { throw .unreadableArchive("a multi-disk archive") }
        guard Int64(offset) + Int64(size) <= tailStart + Int64(position) else {
            throw .unreadableArchive("the central directory overlaps its end record")
        }
        return Location(offset: Int64(offset), size: Int64(size), entryCount: Int(count))
    }

    /// Parses the central directory `bytes` found at `location`.
    static func parse(_ data: Data, location: Location) throws(DeltaFallback) -> ZipDirectory {
        let bytes = [UInt8](data)
        guard bytes.count == location.size else { throw .unreadableArchive("the central directory is cut") }
        var entries: [ZipDirectoryEntry] = []
        entries.reserveCapacity(location.entryCount)
        var position = 0
        while position < bytes.count {
            guard position + 46 <= bytes.count, bytes.readUInt32(at: position) == 0x0201_4b50 else {
                throw .unreadableArchive("a central-directory record is malformed")
            }
            let nameLength = Int(bytes.readUInt16(at: position + 28))
            let extraLength = Int(bytes.readUInt16(at: position + 30))
            let commentLength = Int(bytes.readUInt16(at: position + 32))
            let end = position + 46 + nameLength + extraLength + commentLength
            guard end <= bytes.count else { throw .unreadableArchive("a central-directory record is cut") }
            let compressed = bytes.readUInt32(at: position + 20)
            let uncompressed = bytes.readUInt32(at: position + 24)
            let offset = bytes.readUInt32(at: position + 42)
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
                throw .unreadableArchive("ZIP64")
            }
            let method = bytes.readUInt16(at: position + 10)
            guard method == 0 || method == 8 else { throw .unreadableArchive("compression method \(method)") }
            let name = String(decoding: bytes[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            guard Int64(offset) < location.offset else { throw .unreadableArchive("an entry lies past the central directory") }
            entries.append(
                ZipDirectoryEntry(
                    name: name, crc32: bytes.readUInt32(at: position + 16), method: method, flags: bytes.readUInt16(at: position + 8),
                    compressedSize: Int64(compressed), uncompressedSize: Int64(uncompressed), localHeaderOffset: Int64(offset),
                    record: Data(bytes[position..<end])))
            position = end
        }
        guard entries.count == location.entryCount else { throw .unreadableArchive("the entry count differs from the end record") }
        return ZipDirectory(entries: entries, location: location)
    }

    /// Reads the central directory of a zip file on disk.
    static func read(file: URL) throws(DeltaFallback) -> ZipDirectory {
        guard let handle = try? FileHandle(forReadingFrom: file) else { throw .unreadableArchive("cannot open \(file.lastPathComponent)") }
        defer { try? handle.close() }
        do {
            let length = try handle.seekToEnd()
            let tailStart = length > UInt64(maxTailSize) ? length - UInt64(maxTailSize) : 0
            try handle.seek(toOffset: tailStart)
            let tail = try handle.readToEnd() ?? Data()
            let location = try locate(tail: tail, tailStart: Int64(tailStart))
            try handle.seek(toOffset: UInt64(location.offset))
            let directory = try handle.read(upToCount: Int(location.size)) ?? Data()
            return try parse(directory, location: location)
        } catch let fallback as DeltaFallback {
            throw fallback
        } catch {
            throw .unreadableArchive("cannot read \(file.lastPathComponent): \(error)")
        }
    }

    /// Where the bytes of the entry whose local header is at each offset end: the next local
    /// header, or the central directory. The span holds the local header, the data and any data
    /// descriptor, so archives written with data descriptors are read the same way.
    func spanEnds() -> [Int64: Int64] {
        let starts = Set(entries.map(\.localHeaderOffset)).sorted()
        var ends: [Int64: Int64] = [:]
        for (index, start) in starts.enumerated() {
            ends[start] = index + 1 < starts.count ? starts[index + 1] : location.offset
        }
        return ends
    }
}

extension [UInt8] {
    func readUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    func readUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }
}

extension ZipDirectory {
    /// An end-of-central-directory record for `count` entries whose directory of `size` bytes
    /// starts at `offset`.
    static func endRecord(count: Int, size: Int64, offset: Int64) -> Data {
        var record = Data()
        record.appendLittleEndian(UInt32(0x0605_4b50))
        record.appendLittleEndian(UInt16(0))
        record.appendLittleEndian(UInt16(0))
        record.appendLittleEndian(UInt16(count))
        record.appendLittleEndian(UInt16(count))
        record.appendLittleEndian(UInt32(size))
        record.appendLittleEndian(UInt32(offset))
        record.appendLittleEndian(UInt16(0))
        return record
    }
}

extension ZipDirectoryEntry {
    /// The central-directory record with another local header offset.
    func record(movedTo offset: Int64) -> Data {
        var moved = record
        let start = moved.startIndex + 42
        for index in 0..<4 { moved[start + index] = UInt8(truncatingIfNeeded: UInt32(offset) >> (8 * UInt32(index))) }
        return moved
    }
}
