import Foundation

/// An exclusive lock (flock) on the data folder's `sync.lock`, held while a sync runs, so two
/// syncs never download into the same files. The kernel releases it when the process dies.
package final class SyncLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock or throws ``SyncError/busy(lockFile:)`` at once.
    package init(file: URL) throws(SyncError) {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(file.path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw .storage("cannot open \(file.path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .busy(lockFile: file.path)
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
