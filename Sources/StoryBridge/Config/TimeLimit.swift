import Foundation

/// A length of time given in a flag or the config file: `90s`, `30m`, `2h`, `1d`, or a plain
/// number of seconds (`1800`, `0.5`); `none` for no limit where one may be switched off.
package enum TimeLimit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A limit of this long.
    case after(Duration)
    /// No limit.
    case none

    /// Why a text is not a time limit.
    package struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        package let text: String
        package var description: String {
            "'\(text)' is not a length of time: use a number of seconds or a number with s, m, h or d (90s, 30m, 2h), or none"
        }
    }

    /// Reads `90s`, `30m`, `2h`, `1d`, `1800` (seconds) or `none`.
    package init(_ text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "none" {
            self = .none
            return
        }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(trimmed)
        var unit = 1.0
        if let last = trimmed.last, let factor = units[last] {
            number = number.dropLast()
            unit = factor
        }
        guard let value = Double(number), value.isFinite, value >= 0 else { throw ParseError(text: text) }
        self = .after(.milliseconds(Int64((value * unit * 1000).rounded())))
    }

    /// The limit, `nil` for ``none``.
    package var duration: Duration? {
        if case .after(let duration) = self { return duration }
        return nil
    }

    package var description: String {
        switch self {
        case .none: return "none"
        case .after(let duration): return "\(duration.components.seconds)s"
        }
    }

    /// A string (as ``init(_:)`` reads) or a number of seconds.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) {
            guard seconds.isFinite, seconds >= 0 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a length of time must be 0 or more seconds")
            }
            self = .after(.milliseconds(Int64((seconds * 1000).rounded())))
            return
        }
        let text = try container.decode(String.self)
        do {
            self = try TimeLimit(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
