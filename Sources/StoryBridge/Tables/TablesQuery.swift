import Foundation

/// The StoryCLM tables query language: bracketed triplets `[field][op][value]` joined by `[and]` /
/// `[or]` (`and` binds tighter) and grouped with parentheses, e.g.
/// `([name][sw]["S"][or][name][sw]["T"])[and][age][lt][30]`.
///
/// Operators: eq, ne, lt, lte, gt, gte, in, nin, cn (contains), re (regex), sw (starts with),
/// ew (ends with). Strings are double-quoted; numbers and true/false are bare; lists are
/// comma-separated. Field names match exactly, else ignoring case.
package indirect enum TablesQuery: Sendable, Hashable {
    case all
    case comparison(field: String, op: String, values: [JSONValue])
    case and(TablesQuery, TablesQuery)
    case or(TablesQuery, TablesQuery)

    /// Why a query could not be read.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package let position: Int
        package let reason: String
        package var description: String { "\(reason) at character \(position + 1)" }
    }

    /// Why a query built in code (not parsed) could not be matched: ``parse(_:)`` refuses these
    /// already, naming them.
    package enum MatchError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A `re` operand that is not a regular expression.
        case invalidPattern(String, reason: String)

        package var description: String {
            switch self {
            case .invalidPattern(let pattern, let reason): return "invalid regular expression '\(pattern)': \(reason)"
            }
        }
    }

    static let operators: Set<String> = ["eq", "ne", "lt", "lte", "gt", "gte", "in", "nin", "cn", "re", "sw", "ew"]

    /// Parses a query; an empty one matches everything.
    package static func parse(_ text: String) throws(ParseError) -> TablesQuery {
        var parser = Parser(Array(text))
        parser.skipSpaces()
        if parser.atEnd { return .all }
        let query = try parser.expression()
        parser.skipSpaces()
        guard parser.atEnd else { throw ParseError(position: parser.index, reason: "unexpected '\(parser.peek!)'") }
        return query
    }

    /// Whether `entry` matches.
    package func matches(_ entry: [String: JSONValue]) throws(MatchError) -> Bool {
        switch self {
        case .all: return true
        case .and(let left, let right):
            guard try left.matches(entry) else { return false }
            return try right.matches(entry)
        case .or(let left, let right):
            if try left.matches(entry) { return true }
            return try right.matches(entry)
        case .comparison(let field, let op, let values):
            let value = entry[field] ?? entry.first { $0.key.lowercased() == field.lowercased() }?.value ?? .null
            return try Self.compare(value, op, values)
        }
    }

    /// The text a text operator (cn, sw, ew, re) compares with: a string as is, another value as
    /// JSON, nothing for null.
    static func textOperand(_ operand: JSONValue) -> String? {
        operand.stringValue ?? (operand == .null ? nil : operand.jsonString())
    }

    static func regularExpression(_ pattern: String) throws(MatchError) -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern)
        } catch {
            throw .invalidPattern(pattern, reason: error.localizedDescription)
        }
    }

    static func compare(_ value: JSONValue, _ op: String, _ operands: [JSONValue]) throws(MatchError) -> Bool {
        guard let first = operands.first else { return false }
        switch op {
        case "eq": return order(value, first) == .orderedSame
        case "ne": return order(value, first) != .orderedSame
        case "lt": return order(value, first) == .orderedAscending
        case "lte": return [.orderedAscending, .orderedSame].contains(order(value, first))
        case "gt": return order(value, first) == .orderedDescending
        case "gte": return [.orderedDescending, .orderedSame].contains(order(value, first))
        case "in": return operands.contains { order(value, $0) == .orderedSame }
        case "nin": return !operands.contains { order(value, $0) == .orderedSame }
        default:
            guard let text = value.stringValue, let needle = textOperand(first) else {
                return false
            }
            switch op {
            case "cn": return text.range(of: needle, options: .caseInsensitive) != nil
            case "sw": return text.lowercased().hasPrefix(needle.lowercased())
            case "ew": return text.lowercased().hasSuffix(needle.lowercased())
            case "re":
                let regex = try regularExpression(needle)
                return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            default: return false
            }
        }
    }

    /// Orders two values: numbers numerically, strings (and ISO dates) lexically, booleans as equal or not.
    static func order(_ left: JSONValue, _ right: JSONValue) -> ComparisonResult? {
        if let l = left.doubleValue, let r = right.doubleValue {
            return l < r ? .orderedAscending : l > r ? .orderedDescending : .orderedSame
        }
        if case .bool(let l) = left, case .bool(let r) = right { return l == r ? .orderedSame : nil }
        if let l = left.stringValue, let r = right.stringValue {
            return l < r ? .orderedAscending : l > r ? .orderedDescending : .orderedSame
        }
        if left == .null, right == .null { return .orderedSame }
        return nil
    }

    private struct Parser {
        let characters: [Character]
        var index = 0

        init(_ characters: [Character]) { self.characters = characters }

        var atEnd: Bool { index >= characters.count }
        var peek: Character? { atEnd ? nil : characters[index] }

        mutating func skipSpaces() { while let c = peek, c.isWhitespace { index += 1 } }

        mutating func expression() throws(ParseError) -> TablesQuery {
            var left = try term()
            while lookAheadKeyword("or") {
                index += 4
                left = .or(left, try term())
            }
            return left
        }

        mutating func term() throws(ParseError) -> TablesQuery {
            var left = try factor()
            while lookAheadKeyword("and") {
                index += 5
                left = .and(left, try factor())
            }
            return left
        }

        func lookAheadKeyword(_ word: String) -> Bool {
            var probe = index
            while probe < characters.count, characters[probe].isWhitespace { probe += 1 }
            let token = "[\(word)]"
            guard probe + token.count <= characters.count else { return false }
            return String(characters[probe..<(probe + token.count)]).lowercased() == token
        }

        mutating func factor() throws(ParseError) -> TablesQuery {
            skipSpaces()
            if peek == "(" {
                index += 1
                let inner = try expression()
                skipSpaces()
                guard peek == ")" else { throw ParseError(position: index, reason: "expected ')'") }
                index += 1
                return inner
            }
            let field = try bracketed("a field name")
            let op = try bracketed("an operator").lowercased()
            guard operators.contains(op) else { throw ParseError(position: index, reason: "unknown operator '\(op)'") }
            let valuesStart = index
            let values = try valueList()
            // A pattern that does not compile is the query's fault: say so now, not "no match" later.
            if op == "re", let pattern = values.first.flatMap(TablesQuery.textOperand) {
                do {
                    _ = try TablesQuery.regularExpression(pattern)
                } catch {
                    throw ParseError(position: valuesStart, reason: "invalid regular expression '\(pattern)' in [re]")
                }
            }
            return .comparison(field: field, op: op, values: values)
        }

        mutating func bracketed(_ what: String) throws(ParseError) -> String {
            skipSpaces()
            guard peek == "[" else { throw ParseError(position: index, reason: "expected '[' before \(what)") }
            index += 1
            let start = index
            while let c = peek, c != "]" { index += 1 }
            guard peek == "]" else { throw ParseError(position: start, reason: "unclosed '[' in \(what)") }
            let text = String(characters[start..<index]).trimmingSpaces()
            index += 1
            guard !text.isEmpty else { throw ParseError(position: start, reason: "empty \(what)") }
            return text
        }

        mutating func valueList() throws(ParseError) -> [JSONValue] {
            skipSpaces()
            guard peek == "[" else { throw ParseError(position: index, reason: "expected '[' before a value") }
            index += 1
            var values: [JSONValue] = []
            while true {
                skipSpaces()
                if peek == "\"" {
                    values.append(.string(try quoted()))
                } else {
                    let start = index
                    while let c = peek, c != ",", c != "]" { index += 1 }
                    let raw = String(characters[start..<index]).trimmingSpaces()
                    if raw == "true" {
                        values.append(.bool(true))
                    } else if raw == "false" {
                        values.append(.bool(false))
                    } else if raw == "null" {
                        values.append(.null)
                    } else if let int = Int(raw) {
                        values.append(.int(int))
                    } else if let double = Double(raw) {
                        values.append(.double(double))
                    } else if !raw.isEmpty {
                        values.append(.string(raw))
                    } else {
                        throw ParseError(position: start, reason: "empty value")
                    }
                }
                skipSpaces()
                if peek == "," { index += 1; continue }
                guard peek == "]" else { throw ParseError(position: index, reason: "expected ']' after a value") }
                index += 1
                return values
            }
        }

        mutating func quoted() throws(ParseError) -> String {
            let start = index
            index += 1
            var text = ""
            while let c = peek {
                index += 1
                if c == "\\", let next = peek {
                    text.append(next)
                    index += 1
                } else if c == "\"" {
                    return text
                } else {
                    text.append(c)
                }
            }
            throw ParseError(position: start, reason: "unclosed string")
        }
    }
}
