import Foundation

/// The data folder's `library.lock` (an exclusive `flock`): held by an install from its first file
/// in `staging/` until the catalog row that points at its folder is written, and tried by the
/// sweep of leftovers when a library is opened.
///
/// Without it, a library opened by another process (`storybridge list`, `rollback`, a second
/// `serve`) between an install moving its new folder into `presentations/` and writing the row
/// that names it took the folder for a leftover and deleted it: the deck was then `ready` with no
/// files. The sweep never waits for the lock; it skips, and the next opening sweeps. The kernel
/// releases the lock when its process dies, so a killed install leaves leftovers for the next
/// sweep, not a lock.
final class LibraryInstallLock {
    private var descriptor: Int32

    /// Waits for the lock (installs take turns); throws when the lock file cannot be opened.
    static func acquire(in directory: DataDirectory) throws -> LibraryInstallLock {
        guard let lock = try take(in: directory, waiting: true) else {
            throw LibraryError.storage("cannot lock \(file(in: directory).path): \(String(cString: strerror(errno)))")
        }
        return lock
    }

    /// The lock if no install holds it now, else `nil`.
    static func tryAcquire(in directory: DataDirectory) throws -> LibraryInstallLock? {
        try take(in: directory, waiting: false)
    }

    private static func file(in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent("library.lock")
    }

    private static func take(in directory: DataDirectory, waiting: Bool) throws -> LibraryInstallLock? {
        let path = file(in: directory).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LibraryError.storage("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var result: Int32
        repeat {
            result = flock(descriptor, waiting ? LOCK_EX : LOCK_EX | LOCK_NB)
        } while result != 0 && errno == EINTR
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        return LibraryInstallLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Lets the lock go (also done when the value is released).
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
