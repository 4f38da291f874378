import Foundation

/// Beat → dashboard latencies of `storybridge-bench fleet` (docs/design/FLEET.md §11): each row
/// the page applied is matched to the beat it shows, the newest beat of that kiosk sent at or
/// before the hub's `lastBeatAt` (one machine, one wall clock; both carry milliseconds). A beat's
/// latency is the page's time of its first application minus its `sentAt`.
struct FleetLatencies {
    /// Per beat that the page showed: device and its index in the kiosk's beats → latency in ms.
    private(set) var seen: [String: [Int: Double]] = [:]
    /// Rows whose `lastBeatAt` matched no beat sent (kiosks' first rows before any beat, rows
    /// changed by presence alone are matched to their beat and ignored as repeats).
    private(set) var unmatched = 0

    private let parser: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    /// Matches `rows` against the beats `sent` so far.
    mutating func add(_ rows: [FleetDashboardProbe.Applied], sent: [String: [Date]]) {
        for row in rows {
            guard let text = row.lastBeatAt, let received = parser.date(from: text), let beats = sent[row.id] else {
                unmatched += 1
                continue
            }
            // The hub's receipt is at or after the send; both are written with milliseconds.
            let limit = received.addingTimeInterval(0.001)
            guard let index = beats.lastIndex(where: { $0 <= limit }) else {
                unmatched += 1
                continue
            }
            if seen[row.id]?[index] != nil { continue }
            seen[row.id, default: [:]][index] = row.at - beats[index].timeIntervalSince1970 * 1000
        }
    }

    /// The latencies (ms) of the beats sent within `window`, and how many of those the page never
    /// showed.
    func measured(sent: [String: [Date]], window: ClosedRange<Date>) -> (latencies: [Double], missing: Int) {
        var latencies: [Double] = []
        var missing = 0
        for (device, beats) in sent {
            for (index, sentAt) in beats.enumerated() where window.contains(sentAt) {
                if let latency = seen[device]?[index] {
                    latencies.append(latency)
                } else {
                    missing += 1
                }
            }
        }
        return (latencies, missing)
    }
}
