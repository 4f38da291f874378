import Foundation

/// Progress through a deck's slides on standard error: one redrawn line on a terminal, a line per
/// tenth of the deck otherwise (a CI log).
final class SlideProgress: @unchecked Sendable {
    // Updated from one task at a time (the slides are taken in order); the lock covers the rest.
    private let lock = NSLock()
    private let label: String
    private let onTerminal = isatty(STDERR_FILENO) == 1
    private var lastTenth = -1
    private var drawn = false

    init(label: String) {
        self.label = label
    }

    func update(done: Int, total: Int, slide: String) {
        lock.lock()
        defer { lock.unlock() }
        if onTerminal {
            drawn = true
            let line = "\r\u{1B}[K\(label) \(done)/\(total) \(slide)"
            FileHandle.standardError.write(Data(line.utf8))
            return
        }
        let tenth = total > 0 ? done * 10 / total : 10
        guard tenth != lastTenth else { return }
        lastTenth = tenth
        FileHandle.standardError.write(Data("\(label) \(done)/\(total) \(slide)\n".utf8))
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
        drawn = false
    }
}
