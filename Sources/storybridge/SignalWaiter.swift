import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM.
enum SignalWaiter {
    static func waitForInterrupt() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            var sources: [any DispatchSourceSignal] = []
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler {
                    if once.claim() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }
}

/// Keeps signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) private static var kept: [any DispatchSourceSignal] = []
    private static let lock = NSLock()
    static func keep(_ sources: [any DispatchSourceSignal]) {
        lock.lock()
        kept.append(contentsOf: sources)
        lock.unlock()
    }
}

final class OnceFlag: @unchecked Sendable {
    // Guarded by `lock`.
    private var claimed = false
    private let lock = NSLock()
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}
