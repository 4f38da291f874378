import Foundation

extension DeckSchedule {
    /// The schedule as understood, in the configuration's own shape (docs/CONFIGURATION.md
    /// `schedule`): the zone's identifier, the default, the weekly windows with their day names in
    /// week order, and the exceptions by date. The fleet's hello carries it, so the hub can show
    /// what a kiosk will play when; reading it back gives the same schedule.
    package var json: JSONValue {
        func target(_ target: Target) -> [String: JSONValue] {
            var members: [String: JSONValue] = ["presentation": .int(target.presentation)]
            if let slide = target.slide { members["slide"] = .string(slide) }
            return members
        }
        func window(_ window: Window, days: Bool) -> JSONValue {
            var members = target(window.target)
            members["from"] = .string(Self.clock(window.from))
            members["to"] = .string(Self.clock(window.to))
            if days {
                let names = Self.dayNames.sorted { $0.value < $1.value }
                members["days"] = .array(names.filter { window.days.contains($0.value) }.map { .string($0.key) })
            }
            return .object(members)
        }
        return [
            "timeZone": .string(timeZone.identifier),
            "default": defaultTarget.map { .object(target($0)) } ?? .null,
            "weekly": .array(weekly.map { window($0, days: true) }),
            "exceptions": .array(
                exceptions.keys.sorted().map { date in
                    ["date": .string(date.description), "windows": .array((exceptions[date] ?? []).map { window($0, days: false) })]
                }),
        ]
    }
}
