import Foundation
import StoryBridge

/// What an installed revision was unpacked from: each file entry's name, CRC-32 and size, kept
/// in the data folder when the revision is installed as `package-index/<folder>.zipdir`: the
/// package's central-directory records as they were, with an end record (an empty zip's
/// listing), written and read back without an encoder (indexes written as
/// `package-index/<folder>.json` by earlier versions are still read). The delta path compares a
/// new package's central directory with it.
struct DeltaIndex: Sendable, Hashable, Codable {
    struct Entry: Sendable, Hashable, Codable {
        var crc32: UInt32
        var size: Int64
    }

    /// Entry name (as stored in the zip) → content identity; files only.
    var files: [String: Entry]

    init(directory: ZipDirectory) {
        var files: [String: Entry] = [:]
        for entry in directory.entries where !entry.isDirectory {
            files[entry.name] = Entry(crc32: entry.crc32, size: entry.uncompressedSize)
        }
        self.files = files
    }

    /// The folder that holds the indexes.
    static func folder(in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent("package-index")
    }

    /// The endings of the files kept per revision: the central directory as it was, the JSON of
    /// earlier versions, and the revision's verified facts (swept with its index).
    static let suffixes = [".zipdir", ".json", VerifiedFacts.suffix]

    /// The index file of the revision unpacked into presentation folder `folderName`.
    static func file(forFolder folderName: String, in directory: DataDirectory) -> URL {
        folder(in: directory).appendingPathComponent(folderName + ".zipdir")
    }

    /// The index of the revision in `folderName`, when one was kept.
    static func load(forFolder folderName: String, in directory: DataDirectory) -> DeltaIndex? {
        if let data = try? Data(contentsOf: file(forFolder: folderName, in: directory)), let listing = try? records(data) {
            return DeltaIndex(directory: listing)
        }
        let legacy = folder(in: directory).appendingPathComponent(folderName + ".json")
        guard let data = try? Data(contentsOf: legacy) else { return nil }
        return try? JSONDecoder().decode(DeltaIndex.self, from: data)
    }

    /// The records of an index file, which its end record counts and measures. Their offsets are
    /// the package's, not this file's: no bound is put on them.
    private static func records(_ data: Data) throws(DeltaFallback) -> ZipDirectory {
        let location = try ZipDirectory.locate(tail: data, tailStart: 0)
        return try ZipDirectory.parse(
            data.prefix(Int(location.size)), location: .init(offset: .max, size: location.size, entryCount: location.entryCount))
    }

    /// Writes the index of the revision in `folderName`: `listing`'s records and an end record,
    /// to a temporary name, then renamed into place.
    static func save(_ listing: ZipDirectory, forFolder folderName: String, in directory: DataDirectory) throws {
        let target = file(forFolder: folderName, in: directory)
        let temporary = target.appendingPathExtension("tmp")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try write(listing, to: temporary)
        guard rename(temporary.path, target.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Writes `listing`'s records and an end record to `file` (an index not yet in place).
    static func write(_ listing: ZipDirectory, to file: URL) throws {
        var bytes = Data()
        bytes.reserveCapacity(Int(listing.location.size) + ZipDirectory.endRecordSize)
        for entry in listing.entries { bytes.append(entry.record) }
        bytes.append(ZipDirectory.endRecord(count: listing.entries.count, size: Int64(bytes.count), offset: 0))
        try bytes.write(to: file)
    }

    /// Renames `written` (from ``write(_:to:)``, on the data folder's file system) into place as
    /// the index of the revision in `folderName`.
    static func place(_ written: URL, forFolder folderName: String, in directory: DataDirectory) throws {
        let target = file(forFolder: folderName, in: directory)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard rename(written.path, target.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }

    /// Deletes the indexes of presentation folders that no longer exist (at the start of a run,
    /// under the sync lock, so no install is writing one).
    static func sweep(in directory: DataDirectory) {
        let folder = folder(in: directory)
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let suffix = suffixes.first(where: { name.hasSuffix($0) }) else { continue }
            let presentation = directory.presentations.appendingPathComponent(String(name.dropLast(suffix.count)))
            if !manager.fileExists(atPath: presentation.path) { try? manager.removeItem(at: folder.appendingPathComponent(name)) }
        }
    }
}
