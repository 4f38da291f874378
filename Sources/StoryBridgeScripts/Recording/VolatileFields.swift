import Foundation
import StoryBridge

/// The parts of an answer that change from run to run (ids, times, dates), which a recorded
/// expectation matches by type instead of by value: `"$type:string"` in a `dataLike` template.
///
/// A member is volatile when its name says so: `id`, `guid`, `uuid`, a name ending in `Id`, `ID`,
/// `Guid` or `At` (`sessionId`, `createdAt`), or containing `time`, `date` or `timestamp` (any
/// case); or when its value does: a string that is a UUID or starts with an ISO 8601 date and
/// time, or a number above 10^12 (milliseconds since 1970).
package enum VolatileFields {
    /// `value` with every volatile member replaced by its type marker.
    package static func template(of value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(Dictionary(uniqueKeysWithValues: members.map { ($0.key, template(of: $0.value, key: $0.key)) }))
        case .array(let elements):
            return .array(elements.map { template(of: $0, key: key) })
        case .null:
            return value
        default:
            if let key, isVolatile(key: key) { return marker(for: value) }
            if isVolatile(value: value) { return marker(for: value) }
            return value
        }
    }

    /// The marker that matches any value of `value`'s type.
    static func marker(for value: JSONValue) -> JSONValue {
        .string(JSONExpectation.typeMarkerPrefix + JSONExpectation.typeName(value))
    }

    static func isVolatile(key: String) -> Bool {
        let lower = key.lowercased()
        if ["id", "guid", "uuid"].contains(lower) { return true }
        if ["Id", "ID", "Guid", "GUID", "Uuid", "UUID", "At"].contains(where: { key.hasSuffix($0) && key.count > $0.count }) {
            return true
        }
        return ["time", "date", "timestamp"].contains { lower.contains($0) }
    }

    static func isVolatile(value: JSONValue) -> Bool {
        switch value {
        case .string(let text):
            if UUID(uuidString: text) != nil { return true }
            return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*/) != nil
        case .int(let number): return number > 1_000_000_000_000
        case .double(let number): return number > 1e12
        default: return false
        }
    }
}
