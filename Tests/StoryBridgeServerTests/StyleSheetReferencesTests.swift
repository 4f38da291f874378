import Foundation
import Testing

@testable import StoryBridgeServer

@Suite("The files a style sheet names, named by version")
struct StyleSheetReferencesTests {
    private func urls(_ css: String) -> [String] { StyleSheetReferences.references(in: Array(css.utf8)).map(\.url) }

    @Test("url() quoted or not, in any case, and @import strings, in order; comments and other strings read past")
    func found() {
        #expect(
            urls("a{b:url(x.png)} c{d:URL( 'y.woff2' )} @import \"z.css\"; @IMPORT 'w.css' screen;") == [
                "x.png", "y.woff2", "z.css", "w.css",
            ])
        #expect(urls("/* url(no.png) */ a{content:\"url(no.png)\"} b{c:myurl(no.png)} d{e:url(../up/yes.png)}") == ["../up/yes.png"])
        #expect(urls("@import url(\"i.css\") print; a{font:'x'} @font-face{src:url(./f.woff)}") == ["i.css", "./f.woff"])
    }

    @Test("absolute, scheme, data, query, fragment, escaped and unclosed URLs are left alone")
    func leftAlone() {
        #expect(urls("a{b:url(/root.png)} c{d:url(https://x.test/a.png)} e{f:url(data:image/png;base64,AA)}").isEmpty)
        #expect(urls("a{b:url(a.png?x=1)} c{d:url(b.svg#i)} e{f:url('c\\'d.png')} g{h:url(e%20f.png)}").isEmpty)
        #expect(urls("a{b:url(unclosed.png").isEmpty)
        #expect(urls("a{b:url('broken\nline.png')}").isEmpty)
        #expect(urls("@import x; a{b:'not an import.css'}").isEmpty)
    }

    @Test("a URL resolves against the style sheet's folder and never climbs out of the presentation")
    func resolved() {
        #expect(VersionedStyleSheets.resolve("../fonts/a.woff2", from: "css/deck.css") == "fonts/a.woff2")
        #expect(VersionedStyleSheets.resolve("./img/b.png", from: "css/deck.css") == "css/img/b.png")
        #expect(VersionedStyleSheets.resolve("b.png", from: "deck.css") == "b.png")
        #expect(VersionedStyleSheets.resolve("../../x.png", from: "css/deck.css") == nil)
        #expect(VersionedStyleSheets.resolve("a//b.png", from: "css/deck.css") == nil)
    }
}
