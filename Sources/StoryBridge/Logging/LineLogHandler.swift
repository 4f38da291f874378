import Foundation
import Logging
import Synchronization

/// How log lines are written.
package enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-22T08:01:02.345Z debug storybridge: request command=go ms=0.21 viewer=…`
    case text
    /// One JSON object per line: `{"at":…,"level":…,"label":…,"message":…,"metadata":{…}}`.
    case json
}

/// A swift-log handler writing one line per message, as text or JSON, to a file handle (standard
/// error by default). Metadata values longer than ``valueLimit`` characters are cut, so a large
/// payload can never flood the log.
package struct LineLogHandler: LogHandler {
    /// Characters of one metadata value written at most.
    static let valueLimit = 300

    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package let label: String
    package let format: LogFormat
    private let sink: LineSink

    /// A handler for `label` writing in `format` to `output`.
    package init(label: String, format: LogFormat, level: Logger.Level, output: FileHandle = .standardError) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.sink = LineSink.shared(for: output)
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        sink.write(Self.line(level: event.level, label: label, message: "\(event.message)", metadata: merged, format: format))
    }

    /// One formatted line (without the newline).
    package static func line(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, format: LogFormat, at date: Date = Date()
    ) -> String {
        let time = AnalyticsFormat.timestamp(date)
        let values = metadata.sorted { $0.key < $1.key }.map { ($0.key, clip("\($0.value)")) }
        switch format {
        case .text:
            let fields = values.map { key, value in
                let quoted = value.contains(" ") || value.isEmpty ? "\"\(value.replacingOccurrences(of: "\"", with: "\\\""))\"" : value
                return "\(key)=\(quoted)"
            }
            return ([time, level.rawValue, "\(label):", clip(message)] + fields).joined(separator: " ")
        case .json:
            let object: JSONValue = [
                "at": .string(time), "level": .string(level.rawValue), "label": .string(label), "message": .string(clip(message)),
                "metadata": .object(Dictionary(values.map { ($0.0, JSONValue.string($0.1)) }, uniquingKeysWith: { _, last in last })),
            ]
            return object.jsonString()
        }
    }

    static func clip(_ text: String) -> String {
        guard text.count > valueLimit else { return text }
        return String(text.prefix(valueLimit)) + "… (\(text.utf8.count) bytes)"
    }
}

/// Serialises whole lines to one file handle, so lines from different threads never interleave.
final class LineSink: Sendable {
    private let handle: Mutex<FileHandle>

    private init(_ handle: FileHandle) {
        self.handle = Mutex(handle)
    }

    private static let sinks = Mutex<[Int32: LineSink]>([:])

    static func shared(for handle: FileHandle) -> LineSink {
        sinks.withLock { sinks in
            if let existing = sinks[handle.fileDescriptor] { return existing }
            let made = LineSink(handle)
            sinks[handle.fileDescriptor] = made
            return made
        }
    }

    func write(_ line: String) {
        handle.withLock { $0.write(Data((line + "\n").utf8)) }
    }
}
