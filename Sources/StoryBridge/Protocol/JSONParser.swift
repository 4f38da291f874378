import Foundation

/// A fast JSON reader for ``JSONValue`` (RFC 8259): one pass over the UTF-8 bytes, no Codable
/// machinery. Nesting deeper than the limit is refused; so are trailing bytes after the value.
struct JSONParser {
    /// Why text is not JSON.
    struct SyntaxError: Error, CustomStringConvertible, Sendable {
        let offset: Int
        let reason: String
        /// The text nests arrays and objects deeper than the limit.
        var tooDeep = false
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let maxDepth: Int
    /// The bytes come from a Swift `String`, so they are valid UTF-8 and so is every string
    /// between two quotes (quotes are ASCII): strings are made without checking them again.
    private let knownValidUTF8: Bool
    /// A member name repeated in one object is an error rather than the last value winning (the
    /// signed documents of Trust/, whose canonical form forbids duplicates).
    private var refusesDuplicateNames = false

    static func parse(
        _ data: some ContiguousBytes, maxDepth: Int, knownValidUTF8: Bool = false, refusingDuplicateNames: Bool = false
    ) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), maxDepth: maxDepth, knownValidUTF8: knownValidUTF8)
            parser.refusesDuplicateNames = refusingDuplicateNames
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, knownValidUTF8: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.knownValidUTF8 = knownValidUTF8
    }

    private func error(_ reason: String) -> SyntaxError { SyntaxError(offset: index, reason: reason) }

    private func tooDeepError() -> SyntaxError {
        SyntaxError(offset: index, reason: "arrays and objects nested deeper than \(maxDepth) levels", tooDeep: true)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count else { throw error("unexpected end of JSON") }
        for offset in 0..<expected.count where bytes[index + offset] != expected[offset] {
            throw error("invalid literal")
        }
        index += expected.count
    }

    private mutating func object(depth: Int) throws -> JSONValue {
        guard depth <= maxDepth else { throw tooDeepError() }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            // An empty object (a request's usual Data) needs no dictionary storage.
            index += 1
            return .emptyObject
        }
        var members = [String: JSONValue](minimumCapacity: 4)
        var duplicate: String?
        let start = index
        try readMembers(depth: depth, name: { try $0.string() }) { key, value in
            if members.updateValue(value, forKey: key) != nil, duplicate == nil { duplicate = key }
        }
        if refusesDuplicateNames, let duplicate {
            throw SyntaxError(offset: start, reason: "the member name \"\(duplicate)\" appears twice in one object")
        }
        return .object(members)
    }

    /// Reads the members of an object whose `{` was just passed, through its `}`, handing each to
    /// `visit` in order with its name as `readName` reads it (at the name's opening quote).
    private mutating func readMembers<Name>(
        depth: Int, name readName: (inout JSONParser) throws -> Name, _ visit: (Name, consuming JSONValue) -> Void
    ) throws {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let name = try readName(&self)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            visit(name, try value(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return
        }
    }

    /// Reads text whose value is an object, handing the members named in `names` to `visit` (with
    /// the name's index in `names`) in order, instead of building a dictionary: a request object is
    /// read once, member by member, and a member's name is compared as bytes, not made a `String`.
    /// Other members are read (the text must be JSON) and left out. Returns false, having read
    /// nothing, when the value is not an object.
    static func forEachMember(
        ofObjectIn data: UnsafeRawBufferPointer, named names: [StaticString], maxDepth: Int, knownValidUTF8: Bool,
        _ visit: (Int, consuming JSONValue) -> Void
    ) throws -> Bool {
        var parser = JSONParser(bytes: data.bindMemory(to: UInt8.self), maxDepth: maxDepth, knownValidUTF8: knownValidUTF8)
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "{") else { return false }
        guard maxDepth >= 1 else { throw parser.tooDeepError() }
        parser.index += 1
        try parser.readMembers(depth: 1, name: { try $0.memberName(among: names) }) { name, value in
            if let name { visit(name, value) }
        }
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return true
    }

    /// Reads a member name at the opening quote: the index in `names` of the one it is, or `nil`.
    /// A name without escapes is compared byte for byte where it lies; one with escapes is decoded.
    private mutating func memberName(among names: [StaticString]) throws -> Int? {
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            // Escapes, a control character or no closing quote: the general reader decides.
            let name = try string()
            return names.firstIndex { $0.description == name }
        }
        index = end + 1
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
        // Names are a few bytes long: a loop here beats a call to `memcmp`.
        for (position, name) in names.enumerated() where name.utf8CodeUnitCount == raw.count {
            let expected = name.utf8Start
            var offset = 0
            while offset < raw.count, raw[offset] == expected[offset] { offset += 1 }
            if offset == raw.count { return position }
        }
        if !knownValidUTF8 { _ = try validated(start..<end) }
        return nil
    }

    private mutating func array(depth: Int) throws -> JSONValue {
        guard depth <= maxDepth else { throw tooDeepError() }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(elements)
        }
    }

    private mutating func number() throws -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw error("invalid number")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { throw SyntaxError(offset: start, reason: "number out of range") }
        return .double(double)
    }

    private mutating func string() throws -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try validated(start..<index)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            index += 1
        }
        var output = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                if knownValidUTF8 { return String(decoding: output, as: UTF8.self) }
                guard let text = String(validating: output, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of JSON") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): output.append(0x22)
                case UInt8(ascii: "\\"): output.append(0x5C)
                case UInt8(ascii: "/"): output.append(0x2F)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid escape") }
                    output.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in a string") }
                output.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of JSON") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            value <<= 4
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value |= UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value |= UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value |= UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            index += 1
        }
        return value
    }

    private func validated(_ range: Range<Int>) throws -> String {
        if knownValidUTF8 { return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw SyntaxError(offset: range.lowerBound, reason: "string is not valid UTF-8")
        }
        return text
    }
}
