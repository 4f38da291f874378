import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// The injection corpus (`Fixtures/injection`, cases listed in its README) in a real headless
/// Chromium: every slide must get exactly one client, in the document's head, run before the
/// slide's first script, connect, and have a request answered; and the page keeps the mode its
/// doctype asks for.
@Suite("Injection corpus in headless Chromium", .serialized)
struct InjectionCorpusTests {
    static let corpusFolder = repositoryRoot.appendingPathComponent("Fixtures/injection")

    /// A slide of the corpus, the rendering mode its doctype gives, and what else must be true
    /// of it (a JavaScript expression).
    struct Case: Sendable, CustomStringConvertible {
        let slide: String
        var mode = "CSS1Compat"
        var check = "true"
        var description: String { slide }
    }

    static let cases: [Case] = [
        Case(slide: "index.html"),
        Case(slide: "comment-before-doctype.html", check: "document.head.firstElementChild.getAttribute('charset') === 'UTF-8'"),
        Case(
            slide: "byte-order-mark.html",
            check: "document.characterSet === 'UTF-8' && document.getElementById('text').textContent === 'Привет, мир'"),
        Case(slide: "upper-case.html", check: "document.head.firstElementChild.getAttribute('http-equiv') === 'Content-Type'"),
        Case(slide: "attribute-with-markup.html", check: "document.documentElement.getAttribute('data-note').indexOf('<head>') > 0"),
        Case(slide: "script-in-comment.html"),
        Case(
            slide: "noscript-first.html",
            check: "document.head.querySelector('noscript') !== null"
                + " && document.head.querySelector('noscript').textContent.indexOf('storybridge') < 0"),
        Case(
            slide: "template-first.html",
            check: "document.querySelector('template').content.querySelector('[data-storybridge]') === null"),
        Case(slide: "cdata.html"),
        Case(slide: "conditional-comments.html", check: "document.documentElement.className === 'modern'"),
        Case(slide: "no-head.html"),
        Case(slide: "no-html-no-head.html"),
        Case(slide: "fragment.html", mode: "BackCompat"),
        Case(
            slide: "meta-charset-first.html",
            check: "document.head.children[0].getAttribute('charset') === 'utf-8'"
                + " && document.head.children[1].hasAttribute('data-storybridge')"),
        Case(slide: "base-href.html", check: "/\\/elsewhere\\/deeper\\/$/.test(document.baseURI)"),
        Case(slide: "xml-prolog.html"),
    ]

    /// What the page says about its client, once its probe has an answer (or never will).
    static let summary = """
        (function(){
          var p = window.__injectionProbe;
          var open = !!(window.__storybridge && window.__storybridge.state.connected);
          // (The probe's read may be answered early, before the socket opens: wait for both.)
          if (!p || (p.clientFirst && (!p.answer || !open))) { return null; }
          var clients = document.querySelectorAll('script[data-storybridge]');
          return {
            clientFirst: p.clientFirst, status: p.answer ? p.answer.Status : null, clients: clients.length,
            inHead: clients.length > 0 && clients[0].parentNode === document.head,
            connected: open,
            mode: document.compatMode, check: !!(CHECK)
          };
        })()
        """

    @Test("every slide of the corpus gets one client in its head, ahead of its scripts, and the bridge answers")
    func corpus() async throws {
        let listed = try FileManager.default.contentsOfDirectory(atPath: Self.corpusFolder.path).filter { $0.hasSuffix(".html") }
        #expect(Set(listed) == Set(Self.cases.map(\.slide)), "every slide of the corpus has a case here")
        try await withBrowser(folders: [Self.corpusFolder]) { host, page in
            for item in Self.cases {
                try await page.navigate(to: host.slideURL(slide: item.slide))
                let seen = try await page.waitFor(Self.summary.replacingOccurrences(of: "CHECK", with: item.check))
                #expect(seen["clientFirst"] == true, "\(item.slide): the client ran before the slide's first script")
                #expect(seen["status"] == "Success", "\(item.slide): the bridge answered")
                #expect(seen["connected"] == true, "\(item.slide): the bridge socket is open")
                #expect(seen["clients"] == 1, "\(item.slide): one client")
                #expect(seen["inHead"] == true, "\(item.slide): the client is in the head")
                #expect(seen["mode"] == .string(item.mode), "\(item.slide): rendering mode")
                #expect(seen["check"] == true, "\(item.slide): \(item.check)")
            }
        }
    }

    @Test("a slide the client cannot be placed in is served as it is, and the inspector shows why")
    func unplaceable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-utf16-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("<!DOCTYPE html><title>start</title>".utf8).write(to: folder.appendingPathComponent("index.html"))
        let slide = "<!DOCTYPE html><html><head><title>UTF-16</title></head><body><p id=t>UTF-16 slide</p></body></html>"
        let utf16 = Data([0xFF, 0xFE] + slide.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        try utf16.write(to: folder.appendingPathComponent("wide.html"))
        try await withBrowser(folders: [folder]) { host, page in
            try await page.navigate(to: host.slideURL(slide: "wide.html"))
            #expect(try await page.text("#t") == "UTF-16 slide")
            #expect(try await page.evaluate("typeof window.__storybridge") == "undefined")

            let inspector = try await SharedBrowser.shared.get().newPage()
            try await inspector.navigate(to: host.inspectorURL)
            let row = try await inspector.waitFor(
                "(function(){var r=document.querySelector('#log-table tr.entry.kind-warning');return r?r.textContent:null;})()")
            await inspector.close()
            #expect(row.stringValue?.contains("wide.html") == true)
            #expect(row.stringValue?.contains("UTF-16") == true)
        }
    }
}
