import Foundation

/// A kiosk's last hours as an SVG picture 720 × 140 (docs/design/FLEET.md §6): the analytics
/// queue's per-minute maximum as a line (scaled to its own maximum, named at the top), bands
/// behind it where the kiosk was `late` (amber) or `offline` (grey), ticks every 3 hours in the
/// hub's time zone, and the scheduled sync runs as marks along the bottom (failed ones red).
///
/// Built as a string of numbers and fixed words only: no text from a kiosk goes into it.
struct HistoryPlot: Sendable {
    /// The minutes to draw (``FleetHistoryView/Minute``), in any order.
    var minutes: [FleetHistoryView.Minute]
    /// The sync runs to mark.
    var syncRuns: [FleetHistoryView.SyncRun]
    /// The window's start and end.
    var start: Date
    var end: Date
    /// Where the ticks' hours are counted.
    var timeZone: TimeZone

    static let width = 720
    static let height = 140
    private static let left = 44.0
    private static let right = 712.0
    private static let top = 18.0
    private static let bottom = 118.0

    /// The picture, a complete SVG document.
    var svg: String {
        let span = max(1, end.timeIntervalSince(start))
        func x(_ date: Date) -> Double {
            Self.left + min(1, max(0, date.timeIntervalSince(start) / span)) * (Self.right - Self.left)
        }
        let minuteWidth = max(1, 60 / span * (Self.right - Self.left))
        let ordered = minutes.sorted { $0.minute < $1.minute }
        let highest = max(1, ordered.compactMap(\.queueMax).max() ?? 0)
        func y(_ value: Int) -> Double { Self.bottom - Double(value) / Double(highest) * (Self.bottom - Self.top) }
        var parts: [String] = []
        parts.append(
            "<rect class=\"frame\" x=\"\(Self.number(Self.left))\" y=\"\(Self.number(Self.top))\" width=\"\(Self.number(Self.right - Self.left))\" height=\"\(Self.number(Self.bottom - Self.top))\" fill=\"none\" stroke=\"#ccc\"/>"
        )
        for minute in ordered where minute.presence == "late" || minute.presence == "offline" {
            let colour = minute.presence == "late" ? "#f0ad4e" : "#999999"
            parts.append(
                "<rect class=\"band \(minute.presence)\" x=\"\(Self.number(x(minute.minute)))\" y=\"\(Self.number(Self.top))\" width=\"\(Self.number(minuteWidth))\" height=\"\(Self.number(Self.bottom - Self.top))\" fill=\"\(colour)\" fill-opacity=\"0.5\"/>"
            )
        }
        for tick in ticks() {
            let at = Self.number(x(tick.date))
            parts.append(
                "<line class=\"tick\" x1=\"\(at)\" y1=\"\(Self.number(Self.bottom))\" x2=\"\(at)\" y2=\"\(Self.number(Self.bottom + 4))\" stroke=\"#666\"/>"
            )
            parts.append(
                "<text x=\"\(at)\" y=\"\(Self.number(Self.bottom + 16))\" font-size=\"10\" text-anchor=\"middle\" fill=\"#444\">\(tick.label)</text>"
            )
        }
        let points = ordered.compactMap { minute in
            minute.queueMax.map { "\(Self.number(x(minute.minute + 30))),\(Self.number(y($0)))" }
        }
        if !points.isEmpty {
            parts.append(
                "<polyline class=\"queue\" points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\"/>"
            )
        }
        for run in syncRuns where run.at >= start && run.at <= end {
            let at = Self.number(x(run.at))
            let colour = run.result == "failed" ? "#d1242f" : "#2da44e"
            parts.append(
                "<line class=\"sync \(run.result == "failed" ? "failed" : "ok")\" x1=\"\(at)\" y1=\"\(Self.number(Self.bottom - 8))\" x2=\"\(at)\" y2=\"\(Self.number(Self.bottom))\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            )
        }
        parts.append(
            "<text x=\"\(Self.number(Self.left))\" y=\"12\" font-size=\"10\" fill=\"#444\">queue (most per minute), top \(highest)</text>")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.width)" height="\(Self.height)" viewBox="0 0 \(Self.width) \(Self.height)" role="img" aria-label="queue and presence over the window">
            \(parts.joined(separator: "\n"))
            </svg>
            """
    }

    /// The whole hours divisible by 3 in the hub's zone within the window, with their `HH:00`.
    func ticks() -> [(date: Date, label: String)] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard var hour = calendar.dateInterval(of: .hour, for: start)?.start else { return [] }
        var ticks: [(Date, String)] = []
        while hour <= end {
            let value = calendar.component(.hour, from: hour)
            if hour >= start, value % 3 == 0 { ticks.append((hour, String(format: "%02d:00", value))) }
            hour = hour.addingTimeInterval(3600)
        }
        return ticks
    }

    /// A coordinate with at most one decimal.
    private static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
