import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file's size, modification time and kind, read with one `stat` call.
///
/// What `FileManager.attributesOfItem(atPath:)` gives, without what it also looks up: the owner's
/// and group's names, which on Linux cost a read of `/etc/passwd` and one of `/etc/group` per call.
/// A slide's HTML asks for the version of each file it links, so that lookup was on the path of
/// every slide load.
package struct FileStatus: Sendable, Equatable {
    /// Bytes.
    package let size: Int
    /// The last modification, to the nanosecond the file system keeps.
    package let modified: Date
    /// A folder, not a file.
    package let isDirectory: Bool

    /// The status of what `path` names (links followed), or `nil` when there is nothing there or
    /// it cannot be read.
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        size = Int(status.st_size)
        #if canImport(Darwin)
            let time = status.st_mtimespec
        #else
            let time = status.st_mtim
        #endif
        modified = Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000)
        isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
    }
}
