import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file operations of the trust layer, on POSIX calls so that modes and `O_EXCL` are
/// exactly what they say: a new file that must not exist, a whole-file replacement (write, fsync,
/// rename), and a bounded read.
package enum TrustFileIO {
    /// Creates `path` with `bytes` and `mode` (`O_CREAT|O_EXCL|O_NOFOLLOW`: never over an existing
    /// file or through a link), fsynced.
    static func writeNew(_ bytes: Data, to path: String, mode: mode_t) throws(TrustFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw .keyFileExists(path: path) }
            throw .keyFileUnusable(path: path, reason: "cannot create it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        // The umask may have taken bits away; never added any. Set exactly what was asked.
        guard fchmod(descriptor, mode) == 0 else {
            throw .keyFileUnusable(path: path, reason: "cannot set its mode: \(String(cString: strerror(errno)))")
        }
        if let failure = writeAll(descriptor, bytes) ?? (fsync(descriptor) == 0 ? nil : String(cString: strerror(errno))) {
            unlink(path)
            throw .keyFileUnusable(path: path, reason: "cannot write it: \(failure)")
        }
    }

    /// Replaces `path` with `bytes` as one step: a temporary file beside it, written, fsynced and
    /// renamed over it.
    package static func replace(_ bytes: Data, at path: String, mode: mode_t = 0o644) throws(TrustFailure) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp").path
        try writeNew(bytes, to: temporary, mode: mode)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .keyFileUnusable(path: path, reason: "cannot replace it: \(reason)")
        }
    }

    /// Makes `path` a folder of mode 0700 (and its parents as needed); an existing folder keeps its mode.
    package static func makePrivateFolder(_ path: String) throws(TrustFailure) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .keyFileUnusable(path: path, reason: "cannot create the folder: \(SystemProblem(error))")
        }
    }

    /// The contents of `path` (at most `limit` bytes) and its mode; refuses a symbolic link.
    package static func read(_ path: String, limit: Int = 1 << 20) throws(TrustFailure) -> (bytes: Data, mode: UInt16) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw .keyFileUnusable(path: path, reason: "cannot read it: \(reason)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .keyFileUnusable(path: path, reason: "cannot read it: \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .keyFileUnusable(path: path, reason: "not a regular file") }
        guard status.st_size <= limit else { throw .keyFileUnusable(path: path, reason: "larger than \(limit) bytes") }
        var bytes = Data(count: Int(status.st_size))
        let count = bytes.count
        let got = bytes.withUnsafeMutableBytes { raw -> Int in
            var offset = 0
            while offset < count {
                let chunk = systemRead(descriptor, raw.baseAddress! + offset, count - offset)
                if chunk < 0, errno == EINTR { continue }
                if chunk <= 0 { break }
                offset += chunk
            }
            return offset
        }
        guard got == count else { throw .keyFileUnusable(path: path, reason: "cannot read it whole") }
        return (bytes, UInt16(status.st_mode & 0o7777))
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: Data) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }
}

/// `read(2)`, under a name `TrustFileIO.read` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
