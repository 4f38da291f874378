import ArgumentParser
import Foundation

/// `--removal-grace`: a duration written as a number with a unit, `90s`, `30m`, `24h`, `7d`
/// (a bare number is seconds; `0` removes withdrawn presentations at the next run).
struct RemovalGrace: ExpressibleByArgument, Sendable, Hashable {
    var seconds: TimeInterval

    init(seconds: TimeInterval) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var scale: TimeInterval = 1
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        seconds = value * scale
    }

    var defaultValueDescription: String { "24h" }
}
