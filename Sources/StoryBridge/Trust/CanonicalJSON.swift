import Foundation

/// The canonical form of the signed documents (docs/design/TRUST.md 1.3): a strict subset of
/// RFC 8785 (JCS), so any JCS library reproduces the bytes. Objects' members sorted by the UTF-16
/// code units of their names, no whitespace, integers only (within ±(2^53−1)), strings with `"`
/// and `\` escaped, the five short control escapes, other controls as `\u00xx`, everything else
/// literal.
///
/// A signature is checked over these bytes re-made from the parsed document, never over the text as
/// it travelled, so whitespace and member order in transit do not matter.
package enum CanonicalJSON {
    /// The largest magnitude of an integer the form carries: 2^53 − 1 (exact in every JSON reader).
    package static let integerLimit = 9_007_199_254_740_991

    /// The canonical bytes of `value`; refuses a number with a fraction or out of range.
    package static func encode(_ value: JSONValue) throws(TrustFailure) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try append(value, to: &output)
        return output
    }

    /// Parses `data` as a document of the canonical form's values: duplicate member names, numbers
    /// with a fraction or exponent, integers out of range and nesting deeper than
    /// ``JSONValue/defaultMaxDepth`` are refused.
    package static func parse(_ data: some ContiguousBytes) throws(TrustFailure) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, maxDepth: JSONValue.defaultMaxDepth, refusingDuplicateNames: true)
        } catch let error as JSONParser.SyntaxError {
            throw .notCanonical(error.description)
        } catch {
            throw .notCanonical("\(error)")
        }
        try check(value)
        return value
    }

    private static func check(_ value: JSONValue) throws(TrustFailure) {
        switch value {
        case .null, .bool, .string: return
        case .int(let number): try checkRange(number)
        case .double(let number): throw .notCanonical("the number \(number) is not an integer")
        case .array(let elements): for element in elements { try check(element) }
        case .object(let members): for member in members.values { try check(member) }
        }
    }

    private static func checkRange(_ number: Int) throws(TrustFailure) {
        guard number.magnitude <= UInt(integerLimit) else {
            throw .notCanonical("the integer \(number) is outside ±(2^53−1)")
        }
    }

    private static func append(_ value: JSONValue, to output: inout [UInt8]) throws(TrustFailure) {
        switch value {
        case .null: output.append(contentsOf: Array("null".utf8))
        case .bool(let flag): output.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .int(let number):
            try checkRange(number)
            output.append(contentsOf: Array(String(number).utf8))
        case .double(let number): throw .notCanonical("the number \(number) is not an integer")
        case .string(let text): JSONWriter.appendString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try append(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                try append(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
