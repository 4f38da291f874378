import Foundation

/// Why a schedule is refused at start-up; each names the entry (`schedule.weekly[0].from`).
package enum ScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A member missing or of the wrong kind, a bad time, day or date.
    case invalid(place: String, reason: String)
    /// `timeZone` names no zone of the system's database.
    case unknownTimeZone(place: String, name: String)
    /// Two windows cover the same time of one day.
    case overlap(first: String, second: String, day: String, from: String, to: String)
    /// Two exceptions for one date.
    case duplicateDate(first: String, second: String, date: String)

    package var description: String {
        switch self {
        case .invalid(let place, let reason): "\(place): \(reason)"
        case .unknownTimeZone(let place, let name):
            "\(place): '\(name)' is not a time zone of this system's zone database (an IANA name such as Europe/Berlin)"
        case .overlap(let first, let second, let day, let from, let to): "\(first) overlaps \(second) on \(day) \(from)–\(to)"
        case .duplicateDate(let first, let second, let date): "\(first) and \(second) are both for \(date)"
        }
    }
}

extension DeckSchedule {
    /// The weekday names of the config, in Calendar numbering (1 Sunday … 7 Saturday).
    static let dayNames = ["sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7]

    /// Reads a schedule (docs/design/FLEET.md §10.1) from `json`, written at `place` (`schedule`
    /// in a config, or the file's name); `timeZone` absent is the system's zone.
    package static func parse(_ json: JSONValue, place: String = "schedule") throws(ScheduleError) -> DeckSchedule {
        guard let members = json.objectValue else { throw .invalid(place: place, reason: "must be an object") }
        let known: Set<String> = ["timeZone", "default", "weekly", "exceptions"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalid(place: "\(place).\(unknown)", reason: "unknown member (known: default, exceptions, timeZone, weekly)")
        }
        var zone = TimeZone.current
        if let value = members["timeZone"], value != .null {
            guard let name = value.stringValue else { throw .invalid(place: "\(place).timeZone", reason: "must be a string") }
            guard let found = TimeZone(identifier: name) else { throw .unknownTimeZone(place: "\(place).timeZone", name: name) }
            zone = found
        }
        var schedule = DeckSchedule(timeZone: zone)
        if let value = members["default"], value != .null {
            schedule.defaultTarget = try target(value, place: "\(place).default")
        }
        if let value = members["weekly"], value != .null {
            guard let list = value.arrayValue else { throw .invalid(place: "\(place).weekly", reason: "must be a list of windows") }
            for (index, entry) in list.enumerated() {
                schedule.weekly.append(try window(entry, place: "\(place).weekly[\(index)]", weekly: true))
            }
        }
        if let value = members["exceptions"], value != .null {
            guard let list = value.arrayValue else { throw .invalid(place: "\(place).exceptions", reason: "must be a list") }
            var seen: [LocalDate: String] = [:]
            for (index, entry) in list.enumerated() {
                let at = "\(place).exceptions[\(index)]"
                guard let text = entry["date"]?.stringValue, let date = LocalDate(text) else {
                    throw .invalid(place: "\(at).date", reason: "must be a date YYYY-MM-DD")
                }
                if let earlier = seen[date] { throw .duplicateDate(first: earlier, second: at, date: date.description) }
                seen[date] = at
                guard let windows = entry["windows"]?.arrayValue else {
                    throw .invalid(place: "\(at).windows", reason: "must be a list of windows ([] for the default all day)")
                }
                var read: [Window] = []
                for (number, item) in windows.enumerated() {
                    read.append(try window(item, place: "\(at).windows[\(number)]", weekly: false))
                }
                try checkOverlaps(read, day: date.description)
                schedule.exceptions[date] = read
            }
        }
        try schedule.checkWeeklyOverlaps()
        return schedule
    }

    private static func target(_ json: JSONValue, place: String) throws(ScheduleError) -> Target {
        guard let presentation = json["presentation"]?.intValue, presentation > 0 else {
            throw .invalid(place: "\(place).presentation", reason: "must be a presentation id (a positive integer)")
        }
        var slide: String?
        if let value = json["slide"], value != .null {
            guard let text = value.stringValue, !text.isEmpty else {
                throw .invalid(place: "\(place).slide", reason: "must be a slide's name")
            }
            slide = text
        }
        return Target(presentation: presentation, slide: slide)
    }

    private static func window(_ json: JSONValue, place: String, weekly: Bool) throws(ScheduleError) -> Window {
        guard json.objectValue != nil else { throw .invalid(place: place, reason: "must be an object") }
        var days: Set<Int> = []
        if weekly {
            guard let list = json["days"]?.arrayValue, !list.isEmpty else {
                throw .invalid(place: "\(place).days", reason: "must list days: mon, tue, wed, thu, fri, sat, sun")
            }
            for item in list {
                guard let name = item.stringValue, let day = dayNames[name.lowercased()] else {
                    throw .invalid(
                        place: "\(place).days", reason: "'\(item.stringValue ?? "\(item)")' is not one of mon, tue, wed, thu, fri, sat, sun"
                    )
                }
                days.insert(day)
            }
        }
        let from = try minute(json["from"], place: "\(place).from", allowsEndOfDay: false)
        let to = try minute(json["to"], place: "\(place).to", allowsEndOfDay: true)
        if !weekly, to <= from {
            throw .invalid(place: place, reason: "an exception's window may not run past midnight (from \(clock(from)) to \(clock(to)))")
        }
        return Window(days: days, from: from, to: to, target: try target(json, place: place), source: place)
    }

    private static func minute(_ json: JSONValue?, place: String, allowsEndOfDay: Bool) throws(ScheduleError) -> Minute {
        guard let text = json?.stringValue else { throw .invalid(place: place, reason: "must be a time HH:MM") }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...59).contains(minute), (0...23).contains(hour) || (allowsEndOfDay && hour == 24 && minute == 0)
        else { throw .invalid(place: place, reason: "'\(text)' is not a time HH:MM (00:00 to 23:59\(allowsEndOfDay ? ", or 24:00" : ""))") }
        return hour * 60 + minute
    }

    /// `HH:MM` of a minute of the day.
    static func clock(_ minute: Minute) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }

    /// Refuses two windows of one day's list that share time.
    private static func checkOverlaps(_ windows: [Window], day: String) throws(ScheduleError) {
        for (index, first) in windows.enumerated() {
            for second in windows[(index + 1)...] {
                let from = max(first.from, second.from)
                let to = min(first.to, second.to)
                if from < to { throw .overlap(first: first.source, second: second.source, day: day, from: clock(from), to: clock(to)) }
            }
        }
    }

    /// Refuses weekly windows that share time on some weekday, a window running past midnight
    /// counted on the next day too.
    private func checkWeeklyOverlaps() throws(ScheduleError) {
        let names = Self.dayNames.sorted { $0.value < $1.value }.map(\.key)
        for day in 1...7 {
            // Each window's part on `day`: [from, to) within 0..<1440.
            var parts: [Window] = []
            for window in weekly {
                if window.days.contains(day) {
                    var part = window
                    if window.crossesMidnight { part.to = 1440 }
                    parts.append(part)
                }
                let previous = day == 1 ? 7 : day - 1
                if window.crossesMidnight, window.days.contains(previous), window.to > 0 {
                    var part = window
                    part.from = 0
                    parts.append(part)
                }
            }
            for (index, first) in parts.enumerated() {
                for second in parts[(index + 1)...] where first.source != second.source {
                    let from = max(first.from, second.from)
                    let to = min(first.to, second.to)
                    if from < to {
                        throw .overlap(
                            first: first.source, second: second.source, day: names[day - 1], from: Self.clock(from), to: Self.clock(to))
                    }
                }
            }
        }
    }
}
