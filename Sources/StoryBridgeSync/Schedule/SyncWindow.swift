import Foundation

/// The hours of the day when downloads may run (`--sync-window 01:00-05:00`), in local time. A
/// window whose end is before its start runs over midnight (`22:00-06:00`); equal ends mean all day.
package struct SyncWindow: Sendable, Hashable, CustomStringConvertible {
    /// Minutes after midnight.
    package let start: Int
    package let end: Int

    /// Why a text is not a window.
    package struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        package let text: String
        package var description: String { "'\(text)' is not a window of the day: write HH:MM-HH:MM, e.g. 01:00-05:00" }
    }

    package init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Reads `HH:MM-HH:MM` (24-hour clock).
    package init(_ text: String) throws(ParseError) {
        let halves = text.trimmingCharacters(in: .whitespaces).split(separator: "-")
        guard halves.count == 2, let start = Self.minutes(halves[0]), let end = Self.minutes(halves[1]) else {
            throw ParseError(text: text)
        }
        self.init(start: start, end: end)
    }

    private static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hours = Int(parts[0]), let minutes = Int(parts[1]),
            (0...23).contains(hours), (0...59).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    /// Whether `date` (in `calendar`'s time zone) falls inside the window.
    package func contains(_ date: Date, calendar: Calendar = .current) -> Bool {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        if start == end { return true }
        return start < end ? (start..<end).contains(minute) : minute >= start || minute < end
    }

    /// The first moment at or after `date` inside the window.
    package func nextOpening(after date: Date, calendar: Calendar = .current) -> Date {
        if contains(date, calendar: calendar) { return date }
        let opening = DateComponents(hour: start / 60, minute: start % 60, second: 0)
        return calendar.nextDate(after: date, matching: opening, matchingPolicy: .nextTime) ?? date
    }

    package var description: String {
        String(format: "%02d:%02d-%02d:%02d", start / 60, start % 60, end / 60, end % 60)
    }
}
