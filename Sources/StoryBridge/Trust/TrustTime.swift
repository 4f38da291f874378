import Foundation

/// The times of the signed documents: ISO 8601 in UTC without fractions ("2026-11-27T10:00:00Z").
package enum TrustTime {
    /// `date` written as the documents write times (whole seconds, rounded down).
    package static func format(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }

    /// The time `text` names, or `nil` when it is not of the documents' form.
    package static func parse(_ text: String) -> Date? {
        guard text.utf8.count == 20, text.hasSuffix("Z") else { return nil }
        return try? Date(text, strategy: .iso8601)
    }

    /// Reads the member `name` of `json` as a time, refusing anything else.
    static func member(_ name: String, of json: JSONValue, in what: String) throws(TrustFailure) -> Date {
        guard let text = json[name]?.stringValue, let date = parse(text) else {
            throw .malformed(what: what, reason: "\"\(name)\" is not a time like 2026-11-27T10:00:00Z")
        }
        return date
    }
}

extension JSONValue {
    /// The integer member `name`, refusing anything else (for the documents' readers).
    func requiredInt(_ name: String, in what: String, atLeast minimum: Int = 0) throws(TrustFailure) -> Int {
        guard case .int(let value)? = self[name], value >= minimum else {
            throw .malformed(what: what, reason: "\"\(name)\" is not an integer ≥ \(minimum)")
        }
        return value
    }

    /// The string member `name`, refusing anything else.
    func requiredString(_ name: String, in what: String) throws(TrustFailure) -> String {
        guard let value = self[name]?.stringValue else { throw .malformed(what: what, reason: "\"\(name)\" is not a string") }
        return value
    }
}
