import Foundation

/// A one-line progress bar on standard error, drawn only on a terminal and only once the work
/// has taken more than a moment.
final class ProgressBar: @unchecked Sendable {
    // Only touched from the thread doing the work (install is synchronous); the lock guards the
    // rare case of a caller reporting from elsewhere.
    private let lock = NSLock()
    private let label: String
    private let started = Date()
    private var drawn = false
    private let enabled = isatty(STDERR_FILENO) == 1

    init(label: String) {
        self.label = label
    }

    func update(done: Int64, total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let elapsed = Date().timeIntervalSince(started)
        guard enabled, elapsed > 0.3 || drawn else { return }
        drawn = true
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = String(
            format: "\r%@ [%@] %3d%% %.1f/%.1f MB %.1fs", label, bar, Int(fraction * 100), Double(done) / 1e6,
            Double(total) / 1e6, elapsed)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
