import Foundation
import Testing

@testable import StoryBridge

@Suite("Canonical JSON of the signed documents")
struct CanonicalJSONTests {
    private func canonical(_ text: String) throws -> String {
        String(decoding: try CanonicalJSON.encode(CanonicalJSON.parse(Data(text.utf8))), as: UTF8.self)
    }

    @Test("RFC 8785's example 3.2.2 with integers for its numbers: literals, escapes and order")
    func rfcExample() throws {
        let input = #"""
            {
              "numbers": [0, -1, 9007199254740991, -9007199254740991],
              "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
              "literals": [null, true, false]
            }
            """#
        let expected =
            #"{"literals":[null,true,false],"numbers":[0,-1,9007199254740991,-9007199254740991],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        #expect(try canonical(input) == expected)
    }

    @Test("RFC 8785's sorting example 3.2.3: names ordered by UTF-16 code units, not by scalars")
    func rfcSorting() throws {
        let input = #"""
            {"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
             "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}
            """#
        let names = try canonical(input).split(separator: ",").map { $0.split(separator: ":")[0] }
        #expect(
            names == [
                #"{"\r""#, #""1""#, "\"\u{80}\"", #""ö""#, #""€""#, #""😀""#, "\"\u{FB33}\"",
            ])
    }

    @Test("controls are escaped as JCS says: the short forms, else \\u00xx in lower-case hex")
    func controls() throws {
        let value = JSONValue.string("\u{08}\u{09}\u{0A}\u{0C}\u{0D}\u{01}\u{1F}\u{7F}é")
        let text = String(decoding: try CanonicalJSON.encode(value), as: UTF8.self)
        #expect(text == "\"\\b\\t\\n\\f\\r\\u0001\\u001f\u{7F}é\"")
    }

    @Test(
        "fractions, exponents, out-of-range integers, duplicate names and bad syntax are refused",
        arguments: [
            #"{"a":1.5}"#, #"{"a":1.0}"#, #"{"a":1e2}"#, #"[9007199254740992]"#, #"[-9007199254740992]"#,
            #"{"a":1,"a":2}"#, #"{"x":{"b":true,"b":true}}"#, #"{"a":1,}"#, "[1] x",
        ])
    func refusals(text: String) {
        #expect(throws: TrustFailure.self) { _ = try CanonicalJSON.parse(Data(text.utf8)) }
    }

    @Test("the writer refuses a double even when it is whole: a signed body has integers only")
    func writerRefusesDoubles() {
        #expect(throws: TrustFailure.self) { _ = try CanonicalJSON.encode(["size": .double(3)]) }
        #expect(throws: TrustFailure.self) { _ = try CanonicalJSON.encode([.int(CanonicalJSON.integerLimit + 1)]) }
    }

    @Test("any whitespace and member order gives the same canonical bytes, and they read back equal")
    func roundTrip() throws {
        let value: JSONValue = [
            "type": "storybridge-manifest", "specVersion": 1, "files": [["path": "a b/ü.html", "size": 0, "sha256": "00"]],
            "nested": ["z": nil, "a": [true, false, -7]],
        ]
        let canonicalBytes = try CanonicalJSON.encode(value)
        let loose =
            Data(#"  { "nested" : { "a" : [ true , false , -7 ] , "z" : null } ,"#.utf8)
            + Data(#" "specVersion":1, "type":"storybridge-manifest","files":[{"sha256":"00","size":0,"path":"a b/ü.html"}] }"#.utf8)
        #expect(try CanonicalJSON.encode(CanonicalJSON.parse(loose)) == canonicalBytes)
        #expect(try CanonicalJSON.parse(canonicalBytes) == value)
    }
}
