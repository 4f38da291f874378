import Foundation

/// Any JSON value, as carried in the `Data` field of requests, responses and host events.
///
/// Integers and floating-point numbers are kept apart so that `200` goes back out as `200`,
/// never `200.0`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// An empty JSON object, `{}`.
    public static let emptyObject = JSONValue.object([:])
}

extension JSONValue {
    /// The member `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string when this is a string, else `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an `Int` when this is an integer or a whole double, else `nil`.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e15: return Int(value)
        default: return nil
        }
    }

    /// The number as a `Double` when this is numeric, else `nil`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The members when this is an object, else `nil`.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements when this is an array, else `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// A short name of the JSON type, used in error messages ("a string", "an object", ...).
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value (numbers without a fraction become `int`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string written as a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer written as a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A number with a fraction written as a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` or `false` written as a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array written as a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object written as a literal (a repeated key keeps its last value).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `null` written as `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects that ``parse(_:maxDepth:)`` accepts by default.
    /// Deeper input is refused before it reaches the recursive decoder, whose stack it could exhaust.
    public static let defaultMaxDepth = 64

    /// Input nested deeper than allowed.
    public struct NestingTooDeep: Error, CustomStringConvertible, Sendable {
        /// The deepest nesting allowed.
        public let limit: Int
        /// Names the limit that was passed.
        public var description: String { "arrays and objects nested deeper than \(limit) levels" }
    }

    /// Parses UTF-8 JSON text, refusing nesting deeper than `maxDepth`.
    public static func parse(_ data: Data, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
        do {
            return try JSONParser.parse(data, maxDepth: maxDepth)
        } catch let error as JSONParser.SyntaxError where error.tooDeep {
            throw NestingTooDeep(limit: maxDepth)
        }
    }

    /// Parses JSON text, refusing nesting deeper than `maxDepth`.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { bytes in
            do {
                return try JSONParser.parse(UnsafeRawBufferPointer(bytes), maxDepth: maxDepth, knownValidUTF8: true)
            } catch let error as JSONParser.SyntaxError where error.tooDeep {
                throw NestingTooDeep(limit: maxDepth)
            }
        }
    }

    /// Compact JSON text with sorted keys, so equal values always serialise the same way.
    public func jsonString() -> String {
        JSONWriter.write(self)
    }
}
