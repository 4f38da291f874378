import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What tells one version of a file from the next, read with one `stat` call: its inode and
/// modification time. A file rewritten by rename (``touch(_:)``) gets a new inode, so two writes
/// within one tick of the file system's clock still differ. `nil` when there is no file.
struct FileStamp: Sendable, Hashable {
    let inode: UInt64
    let seconds: Int
    let nanoseconds: Int

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        #if canImport(Darwin)
            seconds = Int(status.st_mtimespec.tv_sec)
            nanoseconds = Int(status.st_mtimespec.tv_nsec)
        #else
            seconds = Int(status.st_mtim.tv_sec)
            nanoseconds = Int(status.st_mtim.tv_nsec)
        #endif
    }

    /// Replaces the file at `path` with a new one (a new inode): its stamp changes.
    static func touch(_ path: String) throws {
        try Data(UUID().uuidString.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
