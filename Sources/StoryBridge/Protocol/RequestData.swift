import Foundation

/// Typed reads of a request's `Data` members. Each failure names the field and what was wrong,
/// and answers 400.
extension BridgeRequest {
    /// The members of `Data`; fails when `Data` is not an object.
    public func dataObject() throws(BridgeError) -> [String: JSONValue] {
        guard case .object(let members) = data else {
            throw .invalidData(field: "Data", reason: "must be an object, got \(data.typeDescription)")
        }
        return members
    }

    /// A required string member.
    public func string(_ field: String) throws(BridgeError) -> String {
        guard let value = try dataObject()[field], value != .null else {
            throw .invalidData(field: field, reason: "is missing")
        }
        guard case .string(let string) = value else {
            throw .invalidData(field: field, reason: "must be a string, got \(value.typeDescription)")
        }
        return string
    }

    /// An optional string member: `nil` when absent or null.
    public func optionalString(_ field: String) throws(BridgeError) -> String? {
        guard let value = try dataObject()[field], value != .null else { return nil }
        guard case .string(let string) = value else {
            throw .invalidData(field: field, reason: "must be a string, got \(value.typeDescription)")
        }
        return string
    }

    /// A required integer member; a numeric string such as `"12"` is accepted, as content often
    /// sends ids that way.
    public func int(_ field: String) throws(BridgeError) -> Int {
        guard let value = try dataObject()[field], value != .null else {
            throw .invalidData(field: field, reason: "is missing")
        }
        if let number = value.intValue { return number }
        if case .string(let text) = value, let number = Int(text.trimmingCharacters(in: .whitespaces)) {
            return number
        }
        throw .invalidData(field: field, reason: "must be an integer, got \(value.typeDescription)")
    }

    /// An optional member of any type: `nil` when absent.
    public func member(_ field: String) throws(BridgeError) -> JSONValue? {
        try dataObject()[field]
    }

    /// A required, non-empty string member (a key).
    public func nonEmptyString(_ field: String) throws(BridgeError) -> String {
        let value = try string(field)
        guard !value.isEmpty else { throw .invalidData(field: field, reason: "is empty") }
        return value
    }

    /// A member as text, the way content's values are stored: a string as is, null or absent as
    /// "", anything else as its JSON text.
    public func stringified(_ field: String) throws(BridgeError) -> String {
        switch try member(field) {
        case .string(let text)?: return text
        case nil, .null?: return ""
        case let other?: return other.jsonString()
        }
    }
}
