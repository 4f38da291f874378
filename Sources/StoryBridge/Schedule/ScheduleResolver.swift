import Foundation

/// What a ``DeckSchedule`` plays at a moment, and until when (docs/design/FLEET.md §10.2). Pure:
/// it reads only the schedule and the zone's calendar.
///
/// Wall times are placed on the zone's calendar with `Calendar.nextDate(…, matchingPolicy:
/// .nextTime, repeatedTimePolicy: .first)`: a time that does not exist (the hour skipped when
/// clocks spring forward) starts at the first instant after the gap, so a window lying wholly in
/// the gap is empty and skipped; a time that occurs twice (clocks falling back) means its first
/// occurrence.
package struct ScheduleResolver: Sendable {
    /// What plays: a window's target, or the default.
    package struct Entry: Sendable, Equatable {
        package var target: DeckSchedule.Target
        /// `weekly`, `exception` or `default`.
        package var source: String
        /// The window's place in the config (`schedule.weekly[0]`); `nil` for the default.
        package var window: String?
    }

    package let schedule: DeckSchedule
    private let calendar: Calendar

    package init(_ schedule: DeckSchedule) {
        self.schedule = schedule
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = schedule.timeZone
        self.calendar = calendar
    }

    /// One window placed on the time line.
    struct Interval: Equatable {
        var start: Date
        var end: Date
        var window: DeckSchedule.Window
        var fromException: Bool
    }

    /// The entry at `date` (`nil`: nothing scheduled and no default) and the moment it may change.
    package func entry(at date: Date) -> (entry: Entry?, until: Date) {
        let day = calendar.startOfDay(for: date)
        var intervals: [Interval] = []
        // A window of the day before may run into today; the next start may be days ahead.
        for offset in -1...8 {
            guard let other = calendar.date(byAdding: .day, value: offset, to: day) else { continue }
            intervals += self.intervals(on: calendar.startOfDay(for: other))
        }
        if let current = intervals.filter({ $0.start <= date && date < $0.end }).min(by: { $0.start < $1.start }) {
            let entry = Entry(
                target: current.window.target, source: current.fromException ? "exception" : "weekly", window: current.window.source)
            return (entry, current.end)
        }
        let next = intervals.filter { $0.start > date }.map(\.start).min()
        let until = next ?? calendar.date(byAdding: .day, value: 8, to: day) ?? date.addingTimeInterval(8 * 86_400)
        return (schedule.defaultTarget.map { Entry(target: $0, source: "default", window: nil) }, until)
    }

    /// The windows of the local day that starts at `start`, placed on the time line; empty ones
    /// (lying wholly in a daylight-saving gap) left out. An exception date owns its day: the
    /// weekly windows are not used that day, and a weekly window of the day before is cut at its
    /// midnight.
    func intervals(on start: Date) -> [Interval] {
        let components = calendar.dateComponents([.year, .month, .day, .weekday], from: start)
        guard let year = components.year, let month = components.month, let dayOfMonth = components.day,
            let weekday = components.weekday, let nextDay = calendar.date(byAdding: .day, value: 1, to: start)
        else { return [] }
        let nextStart = calendar.startOfDay(for: nextDay)
        let date = LocalDate(year: year, month: month, day: dayOfMonth)
        var result: [Interval] = []
        if let exception = schedule.exceptions[date] {
            for window in exception {
                let from = wallTime(window.from, on: start, nextStart: nextStart)
                let to = wallTime(window.to, on: start, nextStart: nextStart)
                if from < to { result.append(Interval(start: from, end: to, window: window, fromException: true)) }
            }
            return result
        }
        let nextComponents = calendar.dateComponents([.year, .month, .day], from: nextStart)
        let nextIsException =
            nextComponents.year.flatMap { year in
                nextComponents.month.flatMap { month in
                    nextComponents.day.map { schedule.exceptions[LocalDate(year: year, month: month, day: $0)] != nil }
                }
            } ?? false
        for window in schedule.weekly where window.days.contains(weekday) {
            let from = wallTime(window.from, on: start, nextStart: nextStart)
            var to: Date
            if window.crossesMidnight {
                guard let dayAfter = calendar.date(byAdding: .day, value: 1, to: nextStart) else { continue }
                to = nextIsException ? nextStart : wallTime(window.to, on: nextStart, nextStart: calendar.startOfDay(for: dayAfter))
            } else {
                to = wallTime(window.to, on: start, nextStart: nextStart)
            }
            if from < to { result.append(Interval(start: from, end: to, window: window, fromException: false)) }
        }
        return result
    }

    /// The instant of wall time `minute` on the local day starting at `start` (the next day
    /// starting at `nextStart`): 00:00 is `start`, 24:00 is `nextStart`; a time in a gap is the
    /// first instant after it, a repeated time its first occurrence.
    ///
    /// Worked out from the zone's offsets rather than `Calendar.nextDate(…, matchingPolicy:
    /// .nextTime)`, which in this Foundation skips to the next day for a time inside a 30-minute
    /// gap (Australia/Lord_Howe).
    private func wallTime(_ minute: DeckSchedule.Minute, on start: Date, nextStart: Date) -> Date {
        if minute == 0 { return start }
        if minute >= 1440 { return nextStart }
        let zone = schedule.timeZone
        let day = calendar.dateComponents([.year, .month, .day], from: start)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0) ?? utc.timeZone
        guard
            let naive = utc.date(
                from: DateComponents(year: day.year, month: day.month, day: day.day, hour: minute / 60, minute: minute % 60))
        else { return nextStart }
        // The wall time read with the offset in force at the day's start, and with the one at its end.
        let offsets = [zone.secondsFromGMT(for: start), zone.secondsFromGMT(for: nextStart.addingTimeInterval(-1))]
        let valid = offsets.map { naive.addingTimeInterval(-TimeInterval($0)) }.filter { candidate in
            naive.addingTimeInterval(-TimeInterval(zone.secondsFromGMT(for: candidate))) == candidate
        }
        if let first = valid.min() { return min(max(first, start), nextStart) }
        // In a gap: the first instant after it is the transition.
        return min(zone.nextDaylightSavingTimeTransition(after: start) ?? nextStart, nextStart)
    }
}
