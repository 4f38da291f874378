import Foundation

/// One request string of the Veeva libraries, after its scheme (`veeva:` or `vaultcrm:`):
/// comma-separated parts `name(argument)`, for example
/// `getDataForObjectV2(Account),fieldName(Id),com_veeva_clm_getCurrentObjectField(result)` or
/// `saveObjectV2(Account),value({"Name":"A"}),callback(com_veeva_clm_createRecord)`.
/// Arguments may hold commas, parentheses and quoted text (`where(WHERE a='x' AND (b="y"))`,
/// JSON in `value(…)`): a part ends at the parenthesis that balances its own, outside quotes.
package struct VeevaRequest: Sendable, Hashable {
    /// One `name(argument)` part.
    package struct Part: Sendable, Hashable {
        package var name: String
        package var argument: String
    }

    /// The parts in order; the first names the function.
    package var parts: [Part]

    /// The function the request calls (`getDataForObjectV2`, `gotoSlide`…).
    package var function: String { parts.first?.name ?? "" }
    /// The first part's argument.
    package var subject: String { parts.first?.argument ?? "" }

    /// The global the answer goes to: `callback(NAME)`, else the last part whose argument is
    /// `result` (`NAME(result)`); `nil` when the request names none (`callback()`, navigation).
    package var callback: String? {
        if let part = parts.dropFirst().last(where: { $0.name == "callback" }) {
            let name = part.argument.trimmingSpaces()
            return name.isEmpty ? nil : name
        }
        return parts.dropFirst().last { $0.argument.trimmingSpaces() == "result" }?.name
    }

    /// The argument of the first part named `name` after the function, if any.
    package func argument(_ name: String) -> String? {
        parts.dropFirst().first { $0.name.lowercased() == name.lowercased() }?.argument
    }

    /// Whether a part named `name` follows the function.
    package func has(_ name: String) -> Bool { argument(name) != nil }

    /// Why a request string cannot be read.
    package struct Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// Reads a request string (its scheme, if still there, is dropped).
    package init(_ text: String) throws(Unreadable) {
        var body = Substring(text.trimmingSpaces())
        for scheme in ["veeva:", "vaultcrm:"] where body.lowercased().hasPrefix(scheme) { body = body.dropFirst(scheme.count) }
        var parts: [Part] = []
        var index = body.startIndex
        func skipSpaces() { while index < body.endIndex, body[index].isWhitespace { index = body.index(after: index) } }
        while true {
            skipSpaces()
            guard index < body.endIndex else { break }
            let nameStart = index
            while index < body.endIndex, body[index] != "(", body[index] != "," { index = body.index(after: index) }
            let name = body[nameStart..<index].trimmingCharacters(in: .whitespaces)
            guard index < body.endIndex, body[index] == "(", !name.isEmpty else {
                throw Unreadable(reason: "expected name(argument) at '\(body[nameStart...].prefix(60))'")
            }
            index = body.index(after: index)
            let argumentStart = index
            var depth = 0
            var quote: Character? = nil
            var closed = false
            while index < body.endIndex {
                let character = body[index]
                if let open = quote {
                    if character == "\\", open == "\"" {
                        index = body.index(after: index)
                        if index < body.endIndex { index = body.index(after: index) }
                        continue
                    }
                    if character == open { quote = nil }
                } else if character == "'" || character == "\"" {
                    quote = character
                } else if character == "(" {
                    depth += 1
                } else if character == ")" {
                    if depth == 0 {
                        closed = true
                        break
                    }
                    depth -= 1
                }
                index = body.index(after: index)
            }
            guard closed else { throw Unreadable(reason: "the part '\(name)' has no closing parenthesis") }
            parts.append(Part(name: name, argument: String(body[argumentStart..<index])))
            index = body.index(after: index)
            skipSpaces()
            if index < body.endIndex {
                guard body[index] == "," || body[index] == ";" else {
                    throw Unreadable(reason: "expected ',' after '\(name)(…)' at '\(body[index...].prefix(60))'")
                }
                index = body.index(after: index)
            }
        }
        guard !parts.isEmpty else { throw Unreadable(reason: "the request is empty") }
        self.parts = parts
    }
}
