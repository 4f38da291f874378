import Foundation
import StoryBridgeTesting

/// A command run to completion on a thread of its own (never a cooperative one): its exit status,
/// wall time, output, and the peak resident memory seen by polling `/proc/PID/status` (VmHWM).
struct ChildRun: Sendable {
    var status: Int32
    var seconds: Double
    var output: String
    var peakRSSKiB: Int

    /// With `timing`, the child prints its phases (``PhaseTiming``: `STORYBRIDGE_TIMING`), the
    /// first one from the moment it was spawned (`STORYBRIDGE_TIMING_SPAWNED_AT`, set just before).
    static func run(_ executable: String, _ arguments: [String], pollRSS: Bool = false, timing: Bool = false) async throws -> ChildRun {
        let output = Pipe()
        var environment: [String: String]? = nil
        if timing {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var values = ProcessInfo.processInfo.environment
            values["STORYBRIDGE_TIMING"] = "1"
            values["STORYBRIDGE_TIMING_SPAWNED_AT"] = String(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
            environment = values
        }
        let started = ContinuousClock.now
        let process = try await LaunchedProcess.launch(
            URL(fileURLWithPath: executable), arguments: arguments, environment: environment, input: .discard,
            output: .pipe(output), error: .pipe(output))
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let collected = CollectedOutput(output.fileHandleForReading)
                var peak = 0
                if pollRSS {
                    while process.isRunning {
                        peak = max(peak, highWaterMarkKiB(pid: process.processIdentifier) ?? 0)
                        usleep(20_000)
                    }
                }
                process.waitUntilExit()
                let elapsed = ContinuousClock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                continuation.resume(
                    returning: ChildRun(
                        status: process.terminationStatus, seconds: seconds, output: collected.text(), peakRSSKiB: peak))
            }
        }
    }

    /// `VmHWM` of a running process, in KiB.
    static func highWaterMarkKiB(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}

/// Reads a pipe to its end on a thread of its own, so a chatty child never blocks on a full pipe.
final class CollectedOutput: @unchecked Sendable {
    // Written by the reading thread only, read after `done` is signalled.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
