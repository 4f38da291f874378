import Foundation
import StoryBridge

/// Checks a JSON value against what a script expects: exact value, subset, type, regex on a
/// string, substring, or a template (`like`) whose `"$type:NAME"` strings match any value of that
/// type (what `serve --record` writes for ids and times).
package struct JSONExpectation: Sendable, Hashable {
    package var exact: JSONValue?
    /// The same shape and values as `like`, except that a string `"$type:NAME"` matches any value
    /// of type NAME (`null|boolean|number|string|array|object`).
    package var like: JSONValue?
    var subset: JSONValue?
    package var type: String?
    package var matches: String?
    package var contains: String?

    package init(
        exact: JSONValue? = nil, subset: JSONValue? = nil, type: String? = nil, matches: String? = nil, contains: String? = nil,
        like: JSONValue? = nil
    ) {
        self.exact = exact
        self.like = like
        self.subset = subset
        self.type = type
        self.matches = matches
        self.contains = contains
    }

    package var isEmpty: Bool { exact == nil && like == nil && subset == nil && type == nil && matches == nil && contains == nil }

    /// Why `value` does not meet the expectation, or `nil` when it does.
    package func mismatch(_ value: JSONValue, label: String) -> String? {
        if let exact, exact != value { return "\(label): expected \(exact.jsonString()), got \(value.jsonString())" }
        if let like, let difference = Self.firstUnlike(like, value, path: label) { return difference }
        if let subset, let path = Self.firstDifference(subset, in: value, path: label) {
            return "\(path) (expected to contain \(subset.jsonString()), got \(value.jsonString()))"
        }
        if let type, Self.typeName(value) != type {
            return "\(label): expected a value of type \(type), got \(Self.typeName(value)) \(value.jsonString())"
        }
        let text = value.stringValue ?? value.jsonString()
        if let contains, !text.contains(contains) { return "\(label): expected to contain \"\(contains)\", got \"\(text)\"" }
        if let matches {
            guard let regex = try? NSRegularExpression(pattern: matches) else { return "\(label): the pattern /\(matches)/ is not a regex" }
            if regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil {
                return "\(label): expected to match /\(matches)/, got \"\(text)\""
            }
        }
        return nil
    }

    /// What starts a type marker in a `like` template: `"$type:string"`.
    static let typeMarkerPrefix = "$type:"

    /// The first place where `actual` does not have `template`'s shape: a member missing or extra,
    /// an array of another length, a value of another type where a marker stands, or another value.
    static func firstUnlike(_ template: JSONValue, _ actual: JSONValue, path: String) -> String? {
        switch (template, actual) {
        case (.string(let text), _) where text.hasPrefix(typeMarkerPrefix):
            let type = String(text.dropFirst(typeMarkerPrefix.count))
            return typeName(actual) == type ? nil : "\(path) is \(actual.jsonString()), expected any \(type)"
        case (.object(let want), .object(let have)):
            for (key, value) in want.sorted(by: { $0.key < $1.key }) {
                guard let present = have[key] else { return "\(path).\(key) is missing (expected \(value.jsonString()))" }
                if let difference = firstUnlike(value, present, path: "\(path).\(key)") { return difference }
            }
            if let extra = have.keys.sorted().first(where: { want[$0] == nil }) {
                return "\(path).\(extra) is new: \(have[extra]!.jsonString())"
            }
            return nil
        case (.array(let want), .array(let have)):
            guard want.count == have.count else {
                return "\(path) is \(actual.jsonString()), expected \(want.count) elements like \(template.jsonString())"
            }
            for (index, element) in want.enumerated() {
                if let difference = firstUnlike(element, have[index], path: "\(path)[\(index)]") { return difference }
            }
            return nil
        default:
            if let l = template.doubleValue, let r = actual.doubleValue, l == r { return nil }
            return template == actual ? nil : "\(path) is \(actual.jsonString()), expected \(template.jsonString())"
        }
    }

    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The first place where `expected` is not found in `actual`; objects may hold more members,
    /// arrays must have the same length and match element-wise.
    static func firstDifference(_ expected: JSONValue, in actual: JSONValue, path: String) -> String? {
        switch (expected, actual) {
        case (.object(let want), .object(let have)):
            for (key, value) in want.sorted(by: { $0.key < $1.key }) {
                guard let present = have[key] else { return "\(path).\(key) is missing" }
                if let difference = firstDifference(value, in: present, path: "\(path).\(key)") { return difference }
            }
            return nil
        case (.array(let want), .array(let have)):
            guard want.count == have.count else { return "\(path) has \(have.count) elements, expected \(want.count)" }
            for (index, element) in want.enumerated() {
                if let difference = firstDifference(element, in: have[index], path: "\(path)[\(index)]") { return difference }
            }
            return nil
        default:
            if let l = expected.doubleValue, let r = actual.doubleValue, l == r { return nil }
            return expected == actual ? nil : "\(path) is \(actual.jsonString()), expected \(expected.jsonString())"
        }
    }
}
