import Foundation
import StoryBridge
import Testing

@testable import StoryBridgeServer

@Suite("The Story context as a script literal in a slide")
struct StoryContextLiteralTests {
    @Test("no '</', '<!--' or line and paragraph separators are left; the rest is copied as it is")
    func escapes() throws {
        let value: JSONValue = [
            "note": "a </script> and <!-- a comment --> and a \u{2028} line and \u{2029} paragraph separator",
            "plain": "nothing < to / escape - here", "emoji": "🙂 é",
        ]
        let literal = StoryContextScript.scriptLiteral(value.jsonString())
        #expect(!literal.contains("</") && !literal.contains("<!--"))
        #expect(!literal.unicodeScalars.contains("\u{2028}") && !literal.unicodeScalars.contains("\u{2029}"))
        // The same string to a script: `\/`, `\!` and `\u2028` are `/`, `!` and U+2028 in a JavaScript string.
        let restored = literal.replacingOccurrences(of: "<\\/", with: "</").replacingOccurrences(of: "<\\!--", with: "<!--")
            .replacingOccurrences(of: "\\u2028", with: "\u{2028}").replacingOccurrences(of: "\\u2029", with: "\u{2029}")
        #expect(try JSONValue.parse(restored) == value)
        #expect(StoryContextScript.scriptLiteral(#"{"a":"</b><!--c\#u{2028}"}"#) == #"{"a":"<\/b><\!--c\u2028"}"#)
        let untouched = #"{"a":"b"}"#
        #expect(StoryContextScript.scriptLiteral(untouched) == untouched)
        #expect(StoryContextScript.scriptLiteral("<") == "<" && StoryContextScript.scriptLiteral("<!-") == "<!-")
    }
}
