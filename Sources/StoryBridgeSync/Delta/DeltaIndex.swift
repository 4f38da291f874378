import Foundation
import StoryBridge

/// What an installed revision was unpacked from: each file entry's name, CRC-32 and size, kept
/// as `package-index/<folder>.json` in the data folder when the revision is installed. The
/// delta path compares a new package's central directory with it.
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

    /// The index file of the revision unpacked into presentation folder `folderName`.
    static func file(forFolder folderName: String, in directory: DataDirectory) -> URL {
        folder(in: directory).appendingPathComponent(folderName + ".json")
    }

    /// The index of the revision in `folderName`, when one was kept.
    static func load(forFolder folderName: String, in directory: DataDirectory) -> DeltaIndex? {
        guard let data = try? Data(contentsOf: file(forFolder: folderName, in: directory)) else { return nil }
        return try? JSONDecoder().decode(DeltaIndex.self, from: data)
    }

    /// Writes the index of the revision in `folderName` (write to a temporary name, then rename).
    func save(forFolder folderName: String, in directory: DataDirectory) throws {
        let target = Self.file(forFolder: folderName, in: directory)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.appendingPathExtension("tmp")
        try JSONEncoder().encode(self).write(to: temporary)
        guard rename(temporary.path, target.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Deletes the indexes of presentation folders that no longer exist (at the start of a run,
    /// under the sync lock, so no install is writing one).
    static func sweep(in directory: DataDirectory) {
        let folder = folder(in: directory)
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".json") {
            let presentation = directory.presentations.appendingPathComponent(String(name.dropLast(".json".count)))
            if !manager.fileExists(atPath: presentation.path) { try? manager.removeItem(at: folder.appendingPathComponent(name)) }
        }
    }
}
