import Foundation

/// The WHERE clause of `queryObject`, as both library generations write it, and what it matches:
///
/// ```
/// clause     := ["WHERE"] or
/// or         := and ("OR" and)*
/// and        := factor ("AND" factor)*
/// factor     := "(" or ")" | field operator value | field ("CONTAINS" | "IN") list
/// operator   := "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
/// value      := 'text' | "text" | number | bare word (YES, NO, true, false, null…)
/// list       := "(" value ("," value)* ")" | "{" value ("," value)* "}"
/// ```
///
/// Keywords are read without regard to case; Vault CRM writes `__v` names and single quotes
/// (`product__v CONTAINS ('a','b')`), Veeva CRM 4.x `_vod__c` names and double quotes
/// (`Product_vod__c IN {"a","b"}`, `IsActive == YES`). Values compare as numbers when both sides
/// are numbers, else as text (so ISO dates compare with `<=`/`>=`); `YES`/`true` match a true
/// boolean, `''` matches an empty or missing field. Anything else is refused, naming the part
/// not understood.
package indirect enum VeevaWhere: Sendable, Hashable {
    case all
    case comparison(field: String, op: String, value: Literal)
    case member(field: String, values: [Literal])
    case and(VeevaWhere, VeevaWhere)
    case or(VeevaWhere, VeevaWhere)

    /// A value in a clause.
    package enum Literal: Sendable, Hashable {
        case text(String)
        case number(Double)
        case word(String)
    }

    /// Why a clause is refused: the part not understood.
    package struct NotUnderstood: Error, Sendable, Hashable, CustomStringConvertible {
        package var part: String
        package var description: String { "WHERE clause not understood at '\(part)'" }
    }

    /// Reads `text` (with or without its leading `WHERE`).
    package static func parse(_ text: String) throws(NotUnderstood) -> VeevaWhere {
        var reader = Reader(Array(text))
        reader.skipSpaces()
        if reader.atEnd { return .all }
        _ = reader.keyword("WHERE")
        let clause = try reader.or()
        reader.skipSpaces()
        guard reader.atEnd else { throw reader.notUnderstood() }
        return clause
    }

    /// Whether the record `fields` matches.
    package func matches(_ fields: [String: JSONValue]) -> Bool {
        switch self {
        case .all: return true
        case .and(let left, let right): return left.matches(fields) && right.matches(fields)
        case .or(let left, let right): return left.matches(fields) || right.matches(fields)
        case .member(let field, let values):
            let value = CRMRecord.value(field, in: fields)
            return values.contains { Self.compare(value, $0) == .orderedSame }
        case .comparison(let field, let op, let literal):
            let result = Self.compare(CRMRecord.value(field, in: fields), literal)
            switch op {
            case "=", "==": return result == .orderedSame
            case "!=", "<>": return result != .orderedSame
            case "<": return result == .orderedAscending
            case "<=": return result == .orderedAscending || result == .orderedSame
            case ">": return result == .orderedDescending
            case ">=": return result == .orderedDescending || result == .orderedSame
            default: return false
            }
        }
    }

    /// The record's value against a literal; `nil` when they cannot be ordered.
    static func compare(_ value: JSONValue?, _ literal: Literal) -> ComparisonResult? {
        let text: String
        switch value {
        case nil, .null?: text = ""
        case .bool(let flag)?: text = flag ? "true" : "false"
        case .int(let number)?: text = String(number)
        case .double(let number)?: text = String(number)
        case .string(let string)?: text = string
        default: return nil
        }
        switch literal {
        case .word(let word):
            switch word.lowercased() {
            case "yes", "true": return ["true", "yes", "1"].contains(text.lowercased()) ? .orderedSame : .orderedAscending
            case "no", "false": return ["false", "no", "0", ""].contains(text.lowercased()) ? .orderedSame : .orderedAscending
            case "null": return text.isEmpty ? .orderedSame : .orderedDescending
            default: return order(text, word)
            }
        case .number(let number):
            guard let own = Double(text) else { return order(text, String(number)) }
            return own == number ? .orderedSame : own < number ? .orderedAscending : .orderedDescending
        case .text(let other):
            if let left = Double(text), let right = Double(other) {
                return left == right ? .orderedSame : left < right ? .orderedAscending : .orderedDescending
            }
            return order(text, other)
        }
    }

    private static func order(_ left: String, _ right: String) -> ComparisonResult {
        left == right ? .orderedSame : left < right ? .orderedAscending : .orderedDescending
    }

    private struct Reader {
        let characters: [Character]
        var index = 0

        init(_ characters: [Character]) { self.characters = characters }

        var atEnd: Bool { index >= characters.count }

        mutating func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }

        func notUnderstood() -> NotUnderstood {
            let rest = String(characters[min(index, characters.count)...]).trimmingSpaces()
            return NotUnderstood(part: rest.isEmpty ? "(the end of the clause)" : String(rest.prefix(60)))
        }

        /// Consumes `word` (any case) when it comes next as a whole word.
        mutating func keyword(_ word: String) -> Bool {
            skipSpaces()
            let end = index + word.count
            guard end <= characters.count, String(characters[index..<end]).uppercased() == word else { return false }
            if end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_" { return false }
            index = end
            return true
        }

        mutating func or() throws(NotUnderstood) -> VeevaWhere {
            var clause = try and()
            while keyword("OR") { clause = .or(clause, try and()) }
            return clause
        }

        mutating func and() throws(NotUnderstood) -> VeevaWhere {
            var clause = try factor()
            while keyword("AND") { clause = .and(clause, try factor()) }
            return clause
        }

        mutating func factor() throws(NotUnderstood) -> VeevaWhere {
            skipSpaces()
            if index < characters.count, characters[index] == "(" {
                index += 1
                let inner = try or()
                skipSpaces()
                guard index < characters.count, characters[index] == ")" else { throw notUnderstood() }
                index += 1
                return inner
            }
            let field = name()
            guard !field.isEmpty else { throw notUnderstood() }
            if keyword("CONTAINS") || keyword("IN") { return .member(field: field, values: try list()) }
            skipSpaces()
            var op = ""
            while index < characters.count, "=<>!".contains(characters[index]) {
                op.append(characters[index])
                index += 1
            }
            guard ["=", "==", "!=", "<>", "<", "<=", ">", ">="].contains(op) else {
                index -= op.count
                throw notUnderstood()
            }
            return .comparison(field: field, op: op, value: try literal())
        }

        mutating func name() -> String {
            skipSpaces()
            var text = ""
            while index < characters.count, characters[index].isLetter || characters[index].isNumber || "_.".contains(characters[index]) {
                text.append(characters[index])
                index += 1
            }
            return text
        }

        mutating func list() throws(NotUnderstood) -> [Literal] {
            skipSpaces()
            guard index < characters.count, characters[index] == "(" || characters[index] == "{" else { throw notUnderstood() }
            let close: Character = characters[index] == "(" ? ")" : "}"
            index += 1
            var values: [Literal] = []
            skipSpaces()
            if index < characters.count, characters[index] == close {
                index += 1
                return values
            }
            while true {
                values.append(try literal())
                skipSpaces()
                guard index < characters.count else { throw notUnderstood() }
                if characters[index] == close {
                    index += 1
                    return values
                }
                guard characters[index] == "," else { throw notUnderstood() }
                index += 1
            }
        }

        mutating func literal() throws(NotUnderstood) -> Literal {
            skipSpaces()
            guard index < characters.count else { throw notUnderstood() }
            let first = characters[index]
            if first == "'" || first == "\"" {
                let start = index
                index += 1
                var text = ""
                while index < characters.count, characters[index] != first {
                    text.append(characters[index])
                    index += 1
                }
                guard index < characters.count else {
                    index = start
                    throw notUnderstood()
                }
                index += 1
                return .text(text)
            }
            let word = name()
            if word.isEmpty, first == "-" {
                index += 1
                let digits = name()
                if let number = Double("-" + digits) { return .number(number) }
            }
            guard !word.isEmpty else { throw notUnderstood() }
            if let number = Double(word) { return .number(number) }
            return .word(word)
        }
    }
}
