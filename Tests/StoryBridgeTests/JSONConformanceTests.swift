import Foundation
import Testing

@testable import StoryBridge

/// RFC 8259 conformance of the hand-written reader: documents it must accept with their values,
/// documents it must refuse, and the choices the RFC leaves open (duplicate names, lone
/// surrogates, a byte order mark, nesting depth), each pinned down.
@Suite("JSON reader conformance (RFC 8259)")
struct JSONConformanceTests {
    /// A valid document and the value it holds.
    struct Valid: CustomTestStringConvertible, Sendable {
        let text: String
        let value: JSONValue
        var testDescription: String { text.count > 40 ? String(text.prefix(40)) + "…" : text }
    }

    static let valid: [Valid] = [
        // Numbers.
        Valid(text: "0", value: .int(0)),
        Valid(text: "-0", value: .int(0)),
        Valid(text: "42", value: .int(42)),
        Valid(text: "-17", value: .int(-17)),
        Valid(text: "3.25", value: .double(3.25)),
        Valid(text: "-0.5", value: .double(-0.5)),
        Valid(text: "1e2", value: .double(100)),
        Valid(text: "1E2", value: .double(100)),
        Valid(text: "1e+2", value: .double(100)),
        Valid(text: "25e-2", value: .double(0.25)),
        Valid(text: "-1.5E-3", value: .double(-0.0015)),
        Valid(text: "0e0", value: .double(0)),
        Valid(text: "9223372036854775807", value: .int(Int.max)),
        Valid(text: "-9223372036854775808", value: .int(Int.min)),
        // Beyond Int: read as the nearest double, not refused and not wrapped.
        Valid(text: "9223372036854775808", value: .double(9_223_372_036_854_775_808)),
        Valid(text: "1.7976931348623157e308", value: .double(.greatestFiniteMagnitude)),
        // Literals and top-level scalars (RFC 8259 allows any value at the top).
        Valid(text: "true", value: .bool(true)),
        Valid(text: "false", value: .bool(false)),
        Valid(text: "null", value: .null),
        Valid(text: #""text""#, value: .string("text")),
        // Strings and escapes.
        Valid(text: #""""#, value: .string("")),
        Valid(text: #""\"\\\/\b\f\n\r\t""#, value: .string("\"\\/\u{08}\u{0C}\n\r\t")),
        Valid(text: #""\u0041\u00e9\u00E9""#, value: .string("Aéé")),
        Valid(text: #""\u0000""#, value: .string("\u{0}")),
        Valid(text: #""\u001f""#, value: .string("\u{1F}")),
        Valid(text: #""\ud83d\ude00""#, value: .string("😀")),
        Valid(text: #""\uD834\uDD1E""#, value: .string("𝄞")),
        Valid(text: #""a\u20acb""#, value: .string("a€b")),
        Valid(text: "\"é😀 unescaped\"", value: .string("é😀 unescaped")),
        Valid(
            text: "\"\u{7F} delete is not a control character for JSON\"",
            value: .string("\u{7F} delete is not a control character for JSON")),
        // Arrays and objects.
        Valid(text: "[]", value: .array([])),
        Valid(text: "{}", value: .emptyObject),
        Valid(text: "[[[]]]", value: .array([.array([.array([])])])),
        Valid(text: #"{"":0}"#, value: .object(["": .int(0)])),
        Valid(text: #"{"a":{"b":[1,{"c":null}]}}"#, value: ["a": ["b": [1, ["c": nil]]]]),
        // Duplicate names: RFC 8259 leaves it open; the last one wins.
        Valid(text: #"{"a":1,"a":2}"#, value: ["a": 2]),
        // Whitespace: space, tab, line feed and carriage return, anywhere between tokens.
        Valid(text: " \t\r\n[ 1 ,\n\t2 ] \r\n", value: [1, 2]),
        Valid(text: "{ \"a\" :\t1 }", value: ["a": 1]),
    ]

    @Test("valid documents are read with their values", arguments: valid)
    func readsValid(_ document: Valid) throws {
        #expect(try JSONValue.parse(document.text) == document.value)
        #expect(try JSONValue.parse(Data(document.text.utf8)) == document.value)
    }

    @Test("-0.0 keeps its sign; -0 is the integer zero")
    func negativeZero() throws {
        guard case .double(let value) = try JSONValue.parse("-0.0") else {
            Issue.record("-0.0 is not read as a double")
            return
        }
        #expect(value == 0 && value.sign == .minus)
        #expect(try JSONValue.parse("-0") == .int(0))
    }

    static let invalid: [String] = [
        // Numbers.
        "01", "-01", "00", "+1", ".5", "1.", "1.e3", "1e", "1e+", "-", "--1", "0x10", "1 2", "NaN", "Infinity", "-Infinity",
        "1e400", "-1e400",
        // Literals.
        "True", "nul", "nulll", "truex", "undefined",
        // Strings.
        #""\x""#, #""\'""#, #""\u12""#, #""\uZZZZ""#, #""\u00G0""#, "'single'",
        // Lone and misordered surrogates (RFC 8259 allows them syntactically; they are no text).
        #""\ud800""#, #""\udc00""#, #""\ud800x""#, #""\ud800\u0041""#, #""\ude00\ud83d""#, #""\ud800\""#,
        // Control characters must be escaped.
        "\"a\u{01}b\"", "\"tab\tin string\"", "\"line\nfeed\"", "\"\u{0}\"", "\"\u{1F}\"",
        // Commas and structure.
        "[1,]", "{\"a\":1,}", "[,1]", "[1,,2]", "{,}", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{1:1}", "[1 2]",
        "{\"a\":1 \"b\":2}", "]", "}", "[}", "{]",
        // Truncated input.
        "", " ", "[", "{", "[1", "[1,", "{\"a\"", "{\"a\":", "{\"a\":1", "\"abc", "\"abc\\", "\"\\u00", "tru",
        // Trailing data.
        "[1]x", "{} {}", "1 1", "\"a\"\"b\"", "null,",
        // Whitespace JSON does not know: form feed, vertical tab, no-break space.
        "\u{0C}1", "[1,\u{0B}2]", "\u{A0}1",
    ]

    @Test("invalid documents are refused with a syntax error", arguments: invalid)
    func refusesInvalid(_ text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { _ = try JSONValue.parse(text) }
        #expect(throws: JSONParser.SyntaxError.self) { _ = try JSONValue.parse(Data(text.utf8)) }
    }

    @Test("the error names the byte where reading stopped")
    func errorOffset() throws {
        let error = try #require(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(#"{"a":[1,2,}"#) }
        #expect(error.offset == 10)
        #expect(error.description.contains("at byte 10"))
    }

    /// Bytes that are not UTF-8 (only reachable through `Data`: a Swift `String` is always UTF-8).
    static let notUTF8: [[UInt8]] = [
        [0x22, 0xFF, 0x22],  // 0xFF never occurs in UTF-8
        [0x22, 0x80, 0x22],  // a lone continuation byte
        [0x22, 0xC3, 0x22],  // a lead byte without its continuation
        [0x22, 0xC0, 0xAF, 0x22],  // an overlong "/"
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // an encoded surrogate (CESU-8)
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0x5C, 0x6E, 0xFF, 0x22],  // invalid after an escape (the slow path)
        [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // in a member name
        [0xFF],  // outside any string
    ]

    @Test("bytes that are not UTF-8 are refused, in values, names and outside strings", arguments: notUTF8)
    func refusesInvalidUTF8(_ bytes: [UInt8]) {
        #expect(throws: JSONParser.SyntaxError.self) { _ = try JSONValue.parse(Data(bytes)) }
    }

    @Test("a byte order mark is refused: RFC 8259 forbids sending one, and no browser does")
    func byteOrderMark() {
        #expect(throws: JSONParser.SyntaxError.self) { _ = try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array("{}".utf8))) }
        #expect(throws: JSONParser.SyntaxError.self) { _ = try JSONValue.parse("\u{FEFF}{}") }
    }

    @Test("nesting up to the limit is read; one level more is refused as too deep, not as a crash")
    func depthLimit() throws {
        let limit = JSONValue.defaultMaxDepth
        func nested(_ depth: Int, open: String, close: String) -> String {
            String(repeating: open, count: depth) + String(repeating: close, count: depth)
        }
        _ = try JSONValue.parse(nested(limit, open: "[", close: "]"))
        _ = try JSONValue.parse(String(repeating: #"{"a":"#, count: limit - 1) + "{}" + String(repeating: "}", count: limit - 1))
        #expect(throws: JSONValue.NestingTooDeep.self) { _ = try JSONValue.parse(nested(limit + 1, open: "[", close: "]")) }
        #expect(throws: JSONValue.NestingTooDeep.self) { _ = try JSONValue.parse(nested(100_000, open: "[", close: "]")) }
        #expect(throws: JSONValue.NestingTooDeep.self) { _ = try JSONValue.parse(nested(3, open: "[", close: "]"), maxDepth: 2) }
        #expect(throws: JSONValue.NestingTooDeep.self) {
            _ = try JSONValue.parse(Data(nested(limit + 1, open: "[", close: "]").utf8))
        }
    }

    @Test("large documents: a 1 MB string with escapes, and 10,000 members")
    func largeDocuments() throws {
        let long = String(repeating: "0123456789abcdef\\n", count: 1 << 16)
        let value = try JSONValue.parse("\"" + long + "\"")
        #expect(value.stringValue?.count == (1 << 16) * 17)
        let members = (0..<10_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let object = try JSONValue.parse("{" + members + "}")
        #expect(object.objectValue?.count == 10_000)
        #expect(object["k9999"] == 9999)
    }

    // MARK: - Frames: the same reader on the bridge's command path

    @Test("a request frame with a repeated member takes the last one, as the general reader does")
    func frameDuplicateMembers() throws {
        let requests = try BridgeRequest.requests(fromFrame: #"{"Command":"a","Data":{"x":1},"Command":"b","GUID":"g"}"#)
        #expect(requests.count == 1)
        #expect(try requests[0].get() == BridgeRequest(command: "b", data: ["x": 1], guid: "g"))
    }

    @Test("an array frame is read once into its requests; a bad element is refused alone")
    func arrayFrame() throws {
        let text = #" [ {"Command":"a","GUID":"1"}, 7, {"Data":{}}, {"Command":"b","Data":[1,2]} ] "#
        let requests = try BridgeRequest.requests(fromFrame: text)
        #expect(requests.count == 4)
        #expect(try requests[0].get() == BridgeRequest(command: "a", guid: "1"))
        #expect(throws: FrameError.self) { try requests[1].get() }
        #expect(throws: FrameError.self) { try requests[2].get() }
        #expect(try requests[3].get() == BridgeRequest(command: "b", data: [1, 2]))
    }

    @Test(
        "frames that are not JSON are refused whole, with the reader's reason",
        arguments: [
            "", "{", #"{"Command":"a",}"#, #"[{"Command":"a"},]"#, "\u{FEFF}{}", #"{"Command":"\ud800"}"#,
        ])
    func frameNotJSON(_ text: String) {
        #expect {
            _ = try BridgeRequest.requests(fromFrame: text)
        } throws: { error in
            guard case FrameError.notJSON = error else { return false }
            return true
        }
    }

    @Test("a frame nested deeper than the limit is refused as too deep, object or array")
    func frameTooDeep() {
        let deepData = #"{"Command":"a","Data":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}"
        let deepArray = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        for text in [deepData, deepArray] {
            #expect(throws: FrameError.notJSON(JSONValue.NestingTooDeep(limit: JSONValue.defaultMaxDepth).description)) {
                _ = try BridgeRequest.requests(fromFrame: text)
            }
        }
    }
}
