import Foundation
import Logging
import Synchronization

/// The warnings and errors a beat carries (docs/design/FLEET.md §3.2): a swift-log handler that
/// keeps entries at `warning` and above in a ring of 50 under a lock (append only, no I/O),
/// merging repeats of one message (a count and the last time). ``take()`` empties it.
package final class FleetLogTap: Sendable {
    /// The most entries kept between beats.
    package static let capacity = 50

    private struct Ring {
        var entries: [Beat.LogEntry] = []
        var dropped = 0
    }

    private let ring = Mutex(Ring())
    private let clock: @Sendable () -> Date

    /// A tap; `clock` stamps the entries.
    package init(clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
    }

    /// Keeps `message` when `level` is `warning` or above.
    package func record(level: Logger.Level, message: String) {
        guard level >= .warning else { return }
        let now = clock()
        let text = message.count > Beat.Log.messageLimit ? String(message.prefix(Beat.Log.messageLimit - 1)) + "…" : message
        let levelName = level == .warning ? "warning" : level == .error ? "error" : "critical"
        ring.withLock { ring in
            if let index = ring.entries.lastIndex(where: { $0.message == text && $0.level == levelName }) {
                ring.entries[index].count += 1
                ring.entries[index].at = now
                return
            }
            if ring.entries.count == Self.capacity {
                ring.entries.removeFirst()
                ring.dropped += 1
            }
            ring.entries.append(Beat.LogEntry(at: now, level: levelName, message: text))
        }
    }

    /// What was kept since the last call, at most 20 entries (the rest counted as dropped).
    package func take() -> Beat.Log {
        let ring = ring.withLock { ring in
            defer { ring = Ring() }
            return ring
        }
        return BeatBuilder.capped(Beat.Log(entries: ring.entries, dropped: ring.dropped))
    }

    /// A `LogHandler` that records into this tap (for a `MultiplexLogHandler` beside the usual one).
    package func handler(label: String) -> some LogHandler {
        TapHandler(tap: self)
    }

    private struct TapHandler: LogHandler {
        let tap: FleetLogTap
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            tap.record(level: event.level, message: "\(event.message)")
        }
    }
}
