import Crypto
import Foundation

/// A built package zip on disk and the validators it is served with.
public struct PackageFile: Sendable, Hashable {
    public var presentationId: Int
    public var revision: Int
    public var file: URL
    public var size: Int64
    /// The SHA-256 of the zip, hex: the strong `ETag`.
    public var sha256: String
}

/// Builds each presentation's package (a zip of its installed folder) once per revision into
/// `content-server/packages/` in the data folder and keeps it there across restarts.
///
/// A build writes a temporary file, hashes it, writes the hash beside it, and only then renames
/// the zip into place, so a crash never leaves a half-written package that looks complete. Builds
/// of the same revision asked for at once share one run; older revisions of a presentation are
/// deleted once a newer one is built. With `leavesOutMediaFiles` the packages leave out the
/// media files the caller names (they are served on their own).
actor PackageCache {
    let folder: URL
    nonisolated let leavesOutMediaFiles: Bool
    private var building: [String: Task<PackageFile, any Error>] = [:]
    private let queue = DispatchQueue(label: "storybridge.content-server.packages", attributes: .concurrent)

    init(folder: URL, leavesOutMediaFiles: Bool = false) {
        self.folder = folder
        self.leavesOutMediaFiles = leavesOutMediaFiles
    }

    /// The package of revision `revision` of presentation `id`, whose files are in `source`,
    /// without the files at the relative paths `leavingOut`.
    func package(id: Int, revision: Int, source: URL, leavingOut: Set<String> = []) async throws -> PackageFile {
        let key = Self.name(id: id, revision: revision)
        if let existing = try? existing(id: id, revision: revision) { return existing }
        if let running = building[key] { return try await running.value }
        let task = Task { [folder, queue] in
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PackageFile, any Error>) in
                queue.async {
                    continuation.resume(
                        with: Result { try Self.build(id: id, revision: revision, source: source, leavingOut: leavingOut, folder: folder) })
                }
            }
        }
        building[key] = task
        defer { building[key] = nil }
        return try await task.value
    }

    static func name(id: Int, revision: Int) -> String { "\(id)-r\(revision)" }

    private func existing(id: Int, revision: Int) throws -> PackageFile? {
        Self.read(id: id, revision: revision, folder: folder)
    }

    private static func read(id: Int, revision: Int, folder: URL) -> PackageFile? {
        let zip = folder.appendingPathComponent(name(id: id, revision: revision) + ".zip")
        let hashFile = folder.appendingPathComponent(name(id: id, revision: revision) + ".sha256")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: zip.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let hash = try? String(contentsOf: hashFile, encoding: .utf8), hash.count == 64
        else { return nil }
        return PackageFile(presentationId: id, revision: revision, file: zip, size: size, sha256: hash)
    }

    private static func build(id: Int, revision: Int, source: URL, leavingOut: Set<String>, folder: URL) throws -> PackageFile {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = name(id: id, revision: revision)
        let temporary = folder.appendingPathComponent(".\(base)-\(UUID().uuidString).zip.part")
        let temporaryHash = folder.appendingPathComponent(".\(base)-\(UUID().uuidString).sha256.part")
        defer {
            try? fileManager.removeItem(at: temporary)
            try? fileManager.removeItem(at: temporaryHash)
        }
        try PackageZipWriter.write(folder: source, to: temporary, leavingOut: leavingOut)
        let hash = try sha256(of: temporary)
        try Data(hash.utf8).write(to: temporaryHash)
        let zip = folder.appendingPathComponent(base + ".zip")
        guard rename(temporaryHash.path, folder.appendingPathComponent(base + ".sha256").path) == 0,
            rename(temporary.path, zip.path) == 0
        else { throw PackageZipError(description: "cannot move the package into \(folder.path)") }
        removeOlderRevisions(of: id, keeping: revision, in: folder)
        guard let built = read(id: id, revision: revision, folder: folder) else {
            throw PackageZipError(description: "the package \(zip.path) vanished after it was built")
        }
        return built
    }

    private static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private static func removeOlderRevisions(of id: Int, keeping revision: Int, in folder: URL) {
        let keep = name(id: id, revision: revision)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard entry.hasPrefix("\(id)-r"), !entry.hasPrefix(keep + ".") else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(entry))
        }
    }
}
