import Foundation
import StoryBridgeSync
import Synchronization

/// Progress of `storybridge sync --content` on standard error: on a terminal, one bar per
/// package being fetched plus one for the whole run (bytes, rate, ETA), redrawn in place; when
/// standard error is not a terminal, plain lines (start, every 25 %, done or failed).
final class SyncProgressDisplay: Sendable {
    private struct Package {
        var name: String
        var size: Int64
        var onDisk: Int64
        var startedFrom: Int64
        var started: ContinuousClock.Instant
        var lastReportedQuarter: Int
        var phase: String
        /// Bytes a delta update does not fetch (the package size less the ranges it asks for).
        var saved: Int64 = 0
    }

    private struct State {
        var packages: [Int: Package] = [:]
        var order: [Int] = []
        var totalBytes: Int64 = 0
        var doneBytes: Int64 = 0  // bytes on disk of finished packages
        var resumedBytes: Int64 = 0
        var savedBytes: Int64 = 0  // by the delta updates of the run, installed or under way
        var started = ContinuousClock.now
        var linesDrawn = 0
        var lastDraw = ContinuousClock.now - .seconds(1)
    }

    private let state = Mutex(State())
    private let terminal = isatty(STDERR_FILENO) == 1

    func handle(_ event: ContentSyncEvent) {
        state.withLock { state in
            switch event {
            case .planned(let packages, let total, let onDisk):
                state.totalBytes = total
                state.resumedBytes = onDisk
                state.started = .now
                if packages > 0 {
                    write(
                        "fetching \(packages) package\(packages == 1 ? "" : "s"), \(Self.megabytes(total))"
                            + (onDisk > 0 ? " (\(Self.megabytes(onDisk)) already here from an interrupted run)" : ""),
                        state: &state)
                }
            case .started(let id, let name, let size, let onDisk):
                state.packages[id] = Package(
                    name: name, size: size, onDisk: onDisk, startedFrom: onDisk, started: .now, lastReportedQuarter: 0,
                    phase: "downloading")
                state.order.append(id)
                if !terminal {
                    write(
                        "presentation \(id) \"\(name)\": \(onDisk > 0 ? "resuming at \(Self.megabytes(onDisk)) of" : "downloading") \(Self.megabytes(size))",
                        state: &state)
                }
            case .delta(let id, let name, let fetching, let size):
                // The run's total counted the whole package; only `fetching` bytes will come.
                state.totalBytes -= max(0, size - fetching)
                state.packages[id] = Package(
                    name: name, size: fetching, onDisk: 0, startedFrom: 0, started: .now, lastReportedQuarter: 0, phase: "downloading",
                    saved: max(0, size - fetching))
                state.savedBytes += max(0, size - fetching)
                state.order.append(id)
                write(
                    "presentation \(id) \"\(name)\": delta update, fetching \(Self.megabytes(fetching)) of \(Self.megabytes(size))"
                        + " (\(Self.megabytes(size - fetching)) saved)", state: &state)
            case .deltaDeclined(let id, let reason):
                if let declined = state.packages.removeValue(forKey: id) {
                    state.order.removeAll { $0 == id }
                    state.savedBytes -= declined.saved
                    state.totalBytes += declined.saved  // the whole package comes after all
                }
                write("presentation \(id): downloading the whole package: \(reason)", state: &state)
            case .progress(let id, let bytes):
                state.packages[id]?.onDisk = bytes
                if !terminal, let package = state.packages[id], package.size > 0 {
                    let quarter = Int(Double(bytes) / Double(package.size) * 4)
                    if quarter > package.lastReportedQuarter, quarter < 4 {
                        state.packages[id]?.lastReportedQuarter = quarter
                        write("presentation \(id): \(Self.line(package, now: .now))", state: &state)
                    }
                }
            case .installing(let id):
                state.packages[id]?.phase = "verifying and installing"
                if !terminal { write("presentation \(id): verifying and installing", state: &state) }
            case .installed(let id, let revision):
                let package = state.packages.removeValue(forKey: id)
                state.order.removeAll { $0 == id }
                state.doneBytes += package?.size ?? 0
                let how = (package?.saved ?? 0) > 0 ? " (delta update, \(Self.megabytes(package?.saved ?? 0)) saved)" : ""
                write("presentation \(id) \"\(package?.name ?? "")\": revision \(revision) installed" + how, state: &state)
            case .failed(let id, let error):
                let package = state.packages.removeValue(forKey: id)
                state.order.removeAll { $0 == id }
                state.doneBytes += package?.size ?? 0
                state.savedBytes -= package?.saved ?? 0
                write("presentation \(id): FAILED: \(error)", state: &state)
            }
            if terminal { redraw(&state, force: false) }
        }
    }

    /// Clears the bars (before the summary lines).
    func finish() {
        state.withLock { state in
            if terminal { clear(&state) }
        }
    }

    private func write(_ line: String, state: inout State) {
        if terminal { clear(&state) }
        FileHandle.standardError.write(Data((line + "\n").utf8))
        if terminal { redraw(&state, force: true) }
    }

    private func clear(_ state: inout State) {
        guard state.linesDrawn > 0 else { return }
        FileHandle.standardError.write(Data((String(repeating: "\u{1B}[1A\u{1B}[2K", count: state.linesDrawn) + "\r").utf8))
        state.linesDrawn = 0
    }

    private func redraw(_ state: inout State, force: Bool) {
        let now = ContinuousClock.now
        guard force || now - state.lastDraw >= .milliseconds(100) else { return }
        state.lastDraw = now
        clear(&state)
        var lines: [String] = []
        for id in state.order {
            guard let package = state.packages[id] else { continue }
            lines.append(String(format: "%6d %@ %@", id, Self.bar(package.onDisk, of: package.size), Self.line(package, now: now)))
        }
        if state.totalBytes > 0, !lines.isEmpty {
            let active = state.packages.values.reduce(Int64(0)) { $0 + $1.onDisk }
            let done = state.doneBytes + active
            let transferred = done - state.resumedBytes
            let elapsed = Self.seconds(now - state.started)
            let speed = elapsed > 0 ? Double(max(transferred, 0)) / elapsed : 0
            lines.append(
                String(
                    format: " total %@ %@ of %@  %@  %@", Self.bar(done, of: state.totalBytes), Self.megabytes(done),
                    Self.megabytes(state.totalBytes), Self.rate(speed), Self.eta(remaining: state.totalBytes - done, rate: speed))
                    + (state.savedBytes > 0 ? "  \(Self.megabytes(state.savedBytes)) saved by delta" : ""))
        }
        guard !lines.isEmpty else { return }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        state.linesDrawn = lines.count
    }

    private static func line(_ package: Package, now: ContinuousClock.Instant) -> String {
        let elapsed = seconds(now - package.started)
        let speed = elapsed > 0 ? Double(package.onDisk - package.startedFrom) / elapsed : 0
        let percent = package.size > 0 ? Int(Double(package.onDisk) / Double(package.size) * 100) : 100
        return String(
            format: "%3d%% %@/%@  %@  %@  %@", percent, megabytes(package.onDisk), megabytes(package.size), rate(speed),
            eta(remaining: package.size - package.onDisk, rate: speed), package.phase == "downloading" ? package.name : package.phase)
    }

    private static func bar(_ done: Int64, of total: Int64) -> String {
        let width = 24
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(fraction * Double(width))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    static func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    private static func rate(_ bytesPerSecond: Double) -> String { String(format: "%.1f MB/s", bytesPerSecond / 1e6) }
    private static func eta(remaining: Int64, rate: Double) -> String {
        guard rate > 0, remaining > 0 else { return remaining > 0 ? "ETA --" : "ETA 0s" }
        let seconds = Int(Double(remaining) / rate)
        return seconds >= 60 ? "ETA \(seconds / 60)m\(seconds % 60)s" : "ETA \(seconds)s"
    }
    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
