import Foundation

/// The session file in the data folder (`sync-session.json`, mode 0600). Writes are atomic: a
/// new file is written and synced beside the old one and renamed over it, so a crash leaves the
/// old session or the new one, never half of one.
package struct SessionStore: Sendable {
    package let file: URL

    package init(folder: URL) {
        file = folder.appendingPathComponent("sync-session.json")
    }

    /// The stored session, or nil when logged out.
    package func load() throws(SyncError) -> SyncSession? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            let data = try Data(contentsOf: file)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(SyncSession.self, from: data)
        } catch {
            throw .storage("the session file \(file.path) is unreadable; run storybridge login again")
        }
    }

    /// Replaces the stored session.
    package func save(_ session: SyncSession) throws(SyncError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(session) } catch { throw .storage("cannot encode the session") }
        try AtomicFile.write(data, to: file, mode: 0o600)
    }

    /// Forgets the session. Returns whether there was one.
    @discardableResult
    package func delete() throws(SyncError) -> Bool {
        guard FileManager.default.fileExists(atPath: file.path) else { return false }
        guard unlink(file.path) == 0 else { throw .storage("cannot delete \(file.path): \(String(cString: strerror(errno)))") }
        return true
    }
}

/// Whole-file replacement by write, fsync and rename.
enum AtomicFile {
    static func write(_ data: Data, to file: URL, mode: mode_t = 0o644) throws(SyncError) {
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(folder.path)")
        }
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw .storage("cannot write \(temporary.path): \(String(cString: strerror(errno)))") }
        var failure = data.withUnsafeBytes { raw in PosixIO.writeAll(descriptor, raw) }
        if failure == nil, fchmod(descriptor, mode) != 0 || fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary.path, file.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary.path)
            throw .storage("cannot write \(file.path): \(failure)")
        }
    }
}
