import Foundation

/// The process's resident size (`/proc/self/statm`) and the machine's available memory
/// (`/proc/meminfo`), for the beat's `memory` (Linux; nil elsewhere or when unreadable).
package enum ProcessFigures {
    /// Both figures, or nil.
    package static func memory() -> Beat.Memory? {
        guard let resident = residentBytes(), let available = availableBytes() else { return nil }
        return Beat.Memory(residentBytes: resident, availableBytes: available)
    }

    /// The resident set in bytes.
    package static func residentBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int64(fields[1]) else { return nil }
        return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `MemAvailable` in bytes.
    package static func availableBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kilobytes = Int64(parts[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// Free bytes for an unprivileged user in the file system of `path`.
    package static func freeBytes(_ path: String) -> Int64? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }
}
