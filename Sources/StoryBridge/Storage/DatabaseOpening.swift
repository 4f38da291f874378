import Foundation
import GRDB

/// Why the host cannot start on its data folder.
package enum StorageSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data folder (or the database in it) cannot be written.
    case readOnlyFolder(path: String, reason: String)
    /// The database cannot be opened, even after a damaged one was moved aside.
    case cannotOpen(path: String, reason: String)
    /// Another process held the database locked for all of `seconds` (SQLITE_BUSY or SQLITE_LOCKED):
    /// it is in use, not damaged, and is left where it is.
    case inUse(path: String, seconds: Int)

    package var description: String {
        switch self {
        case .readOnlyFolder(let path, let reason):
            return "the data folder \(path) cannot be written (\(reason)): give a writable one with --data-dir or STORYBRIDGE_DATA_DIR"
        case .cannotOpen(let path, let reason):
            return "cannot open the database \(path): \(reason)"
        case .inUse(let path, let seconds):
            return "the database \(path) is in use by another process (locked for \(seconds) s); stop it or give another --data-dir"
        }
    }
}

/// A damaged database found at start-up and moved aside.
package struct MovedAsideDatabase: Sendable, Hashable, CustomStringConvertible {
    /// Where the damaged file is now.
    package let movedTo: URL
    /// What was wrong with it.
    package let reason: String

    package var description: String {
        "the database failed its integrity check (\(reason)); it was moved to \(movedTo.path) and a fresh one was created"
    }
}

extension StoryBridgeDatabase {
    /// Opens the database of `directory` for a host that must start whatever it finds:
    ///
    /// - the folder must be writable, else ``StorageSetupError/readOnlyFolder(path:reason:)``
    ///   naming it;
    /// - an existing file that is not a database or fails `PRAGMA integrity_check` is renamed
    ///   `storybridge.sqlite.damaged-<UTC time>` (with its `-wal` and `-shm`) and a fresh database
    ///   is created, so a damaged file never stops the host twice;
    /// - a file another process holds locked is waited for like any reader (`lockWait` seconds, the
    ///   host's busy timeout), then is ``StorageSetupError/inUse(path:seconds:)`` and is never moved.
    ///
    /// Returns the database and, when it happened, what was moved aside.
    package static func openChecked(
        in directory: DataDirectory, now: Date = Date(), maxPageCount: Int? = nil, lockWait: TimeInterval = busyTimeout
    ) throws(StorageSetupError) -> (database: StoryBridgeDatabase, movedAside: MovedAsideDatabase?) {
        try checkWritable(directory.root)
        let file = directory.database
        var movedAside: MovedAsideDatabase?
        if FileManager.default.fileExists(atPath: file.path), let problem = try integrityProblem(file, lockWait: lockWait) {
            movedAside = try moveAside(file, reason: problem, now: now)
        }
        do {
            return (try StoryBridgeDatabase(file: file, maxPageCount: maxPageCount), movedAside)
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw .inUse(path: file.path, seconds: Int(busyTimeout.rounded(.up)))
        } catch {
            throw .cannotOpen(path: file.path, reason: "\(error)")
        }
    }

    /// Creates and removes a file in `folder` (creating the folder first if needed).
    static func checkWritable(_ folder: URL) throws(StorageSetupError) {
        let probe = folder.appendingPathComponent(".storybridge-write-check-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
        } catch {
            throw .readOnlyFolder(path: folder.path, reason: SystemProblem(error).description)
        }
    }

    /// How the database file is damaged (not a database, SQLITE_CORRUPT, or `PRAGMA integrity_check`
    /// not ok), `nil` when it is sound. A lock held by another process is waited for `lockWait`
    /// seconds, then thrown as ``StorageSetupError/inUse(path:seconds:)``; any other failure to read
    /// it is ``StorageSetupError/cannotOpen(path:reason:)``: neither is damage.
    package static func integrityProblem(_ file: URL, lockWait: TimeInterval = busyTimeout) throws(StorageSetupError) -> String? {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(lockWait)
            let queue = try DatabaseQueue(path: file.path, configuration: configuration)
            defer { try? queue.close() }
            let lines = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            return lines == ["ok"] ? nil : lines.prefix(3).joined(separator: "; ")
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            return error.message ?? "\(error.resultCode)"
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw .inUse(path: file.path, seconds: Int(lockWait.rounded(.up)))
        } catch {
            throw .cannotOpen(path: file.path, reason: "\(error)")
        }
    }

    private static func moveAside(_ file: URL, reason: String, now: Date) throws(StorageSetupError) -> MovedAsideDatabase {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let target = file.deletingLastPathComponent().appendingPathComponent(
            file.lastPathComponent + ".damaged-" + formatter.string(from: now))
        do {
            for suffix in ["", "-wal", "-shm"] {
                let source = URL(fileURLWithPath: file.path + suffix)
                guard FileManager.default.fileExists(atPath: source.path) else { continue }
                try FileManager.default.moveItem(at: source, to: URL(fileURLWithPath: target.path + suffix))
            }
        } catch {
            throw .cannotOpen(path: file.path, reason: "it is damaged (\(reason)) and cannot be moved aside: \(error.localizedDescription)")
        }
        return MovedAsideDatabase(movedTo: target, reason: reason)
    }
}
