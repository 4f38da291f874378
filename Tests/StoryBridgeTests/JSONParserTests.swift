import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

@Suite("JSON reader and writer")
struct JSONParserTests {
    @Test("escapes, surrogate pairs, numbers and whitespace are read as RFC 8259 says")
    func reads() throws {
        let value = try JSONValue.parse(" { \"a\\n\\u00e9\\ud83d\\ude00\" : [ -0, 12, -3.5e2, 1E+2, true, false, null, \"\\\"/\\\\\" ] } ")
        #expect(value == ["a\né😀": [0, 12, -350.0, 100.0, true, false, nil, "\"/\\"]])
    }

    @Test(
        "malformed text is refused with the place",
        arguments: [
            "{\"a\":1,}", "[1 2]", "01", "1.", "\"\\x\"", "\"\\ud800\"", "tru", "{\"a\"}", "[1]x", "\"a\u{01}b\"", "",
        ])
    func refuses(text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { _ = try JSONValue.parse(text) }
    }

    @Test("what the writer writes, the reader and Foundation read back the same")
    func roundTrip() throws {
        var factory = FrameFactory(random: SplitMix64(state: 7))
        for _ in 0..<2_000 {
            let value = factory.value()
            let text = value.jsonString()
            #expect(try JSONValue.parse(text) == value)
            #expect(throws: Never.self) { _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) }
        }
        #expect(JSONValue.string("tab\t\u{1}/").jsonString() == #""tab\t\u0001/""#)
        #expect(JSONValue.double(37).jsonString() == "37")
    }
}
