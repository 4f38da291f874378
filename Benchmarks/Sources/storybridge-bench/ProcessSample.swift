import Foundation

/// What `/proc/PID` says of a running process at one moment: CPU time used so far (`utime +
/// stime` of `stat`, in seconds), its threads (entries of `task`), and `VmRSS`/`VmHWM` of
/// `status` (KiB).
struct ProcessSample {
    var cpuSeconds: Double
    var threads: Int
    var residentKiB: Int
    var highWaterKiB: Int

    /// The clock ticks per second `stat` counts in.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Reads the process `pid` now; nil when it is gone or a file cannot be parsed.
    static func read(pid: Int32) -> ProcessSample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name in parentheses: field 3 (state) onwards; utime and stime are
        // fields 14 and 15 of the whole line.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        func kib(_ name: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
                return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
            }
            return 0
        }
        return ProcessSample(
            cpuSeconds: (user + system) / ticksPerSecond, threads: tasks.count, residentKiB: kib("VmRSS"), highWaterKiB: kib("VmHWM"))
    }

    /// `VmRSS 41.2 MiB, VmHWM 43.0 MiB, 12 threads`.
    var memoryText: String {
        String(format: "VmRSS %.1f MiB, VmHWM %.1f MiB, %d threads", Double(residentKiB) / 1024, Double(highWaterKiB) / 1024, threads)
    }
}
