import Foundation

/// Which deck a kiosk plays when (docs/design/FLEET.md §10): recurring weekly windows and dated
/// exceptions in one time zone, and a default for the time outside them. Read from `serve
/// --schedule FILE` or the `schedule` section of serve's `--config`; ``ScheduleResolver`` says
/// what plays at a moment.
package struct DeckSchedule: Sendable, Equatable {
    /// What a window (or the default) plays: a deck and, optionally, the slide it starts at.
    package struct Target: Sendable, Hashable {
        package var presentation: Int
        /// `nil`: the deck's entry slide.
        package var slide: String?

        package init(presentation: Int, slide: String? = nil) {
            self.presentation = presentation
            self.slide = slide
        }
    }

    /// A time of day in local wall time, minutes after midnight; 1440 is `24:00`.
    package typealias Minute = Int

    /// One window: `[from, to)` in local wall time; `to` ≤ `from` runs over midnight into the next
    /// day (weekly windows only).
    struct Window: Sendable, Equatable {
        /// The weekdays it recurs on (Calendar numbering: 1 Sunday … 7 Saturday); empty for an
        /// exception's window.
        var days: Set<Int>
        var from: Minute
        var to: Minute
        var target: Target
        /// Where it was written (`schedule.weekly[0]`), for errors and the beat.
        var source: String

        /// Whether it runs past midnight into the next day.
        var crossesMidnight: Bool { to <= from }
    }

    /// The zone every time is read in.
    package var timeZone: TimeZone
    /// What plays outside every window; `nil`: nothing is switched then.
    var defaultTarget: Target?
    var weekly: [Window]
    /// Dated exceptions: each replaces its date's windows (`[]`: the default all day).
    var exceptions: [LocalDate: [Window]]

    init(timeZone: TimeZone, defaultTarget: Target? = nil, weekly: [Window] = [], exceptions: [LocalDate: [Window]] = [:]) {
        self.timeZone = timeZone
        self.defaultTarget = defaultTarget
        self.weekly = weekly
        self.exceptions = exceptions
    }
}

/// A calendar date without a time or zone, `YYYY-MM-DD`.
struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYY-MM-DD`; `nil` for anything else or a date that does not exist.
    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2, let year = Int(parts[0]),
            let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    static func < (left: LocalDate, right: LocalDate) -> Bool {
        (left.year, left.month, left.day) < (right.year, right.month, right.day)
    }
}
