import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import Testing

/// Routes of the host that need no real socket, driven through Hummingbird's own test framework
/// (`.router`: requests handed to the application's responder, nothing bound).
@Suite("Host routes through Hummingbird's test framework")
struct HostRoutesTests {
    private static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/presentations/demo")

    /// Runs `body` with a client of the host's application serving the demo presentation.
    private func withRoutes(_ body: @escaping @Sendable (any TestClientProtocol, String) async throws -> Void) async throws {
        try await withHostRoutes { client, token, _ in try await body(client, token) }
    }

    /// Runs `body` with a client of the host's application serving the demo presentation, and the host.
    private func withHostRoutes(
        presentation: URL = Self.demo, _ body: @escaping @Sendable (any TestClientProtocol, String, StoryBridgeHost) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-routes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let host = try quietHost(serving: presentation, in: folder)
        let configuration = ServerConfiguration(port: 0)
        let application = StoryBridgeServer(host: host, configuration: configuration).makeApplication()
        try await application.test(.router) { client in try await body(client, configuration.token, host) }
    }

    private func early(_ token: String, frame: JSONValue, slide: String = "index.html") -> String {
        let encoded = frame.jsonString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/__storybridge/early?viewer=v1&presentation=1&slide=\(slide)&load=l1&token=\(token)&frame=\(encoded)"
    }

    @Test("an early read is answered with a script handing over the host's answer")
    func earlyRead() async throws {
        try await withRoutes { client, token in
            let frame: JSONValue = ["Command": "getPresentationInfo", "Data": [:], "GUID": "g1"]
            try await client.execute(uri: early(token, frame: frame), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-store")
                let body = String(buffer: response.body)
                let prefix = "window.__storybridge&&window.__storybridge.earlyAnswered(["
                #expect(body.hasPrefix(prefix) && body.hasSuffix("]);"))
                let list = try JSONValue.parse("[" + body.dropFirst(prefix.count).dropLast(3) + "]")
                let answer = try JSONValue.parse(try #require(list.arrayValue?.first?.stringValue))
                #expect(answer["GUID"] == "g1" && answer["Status"] == "Success")
                #expect(answer["Data"]?["presentationId"] == 1)
            }
        }
    }

    @Test("an early read asked for as JSON (the client's request once its document is parsed) is answered with the answer texts")
    func earlyReadAsJSON() async throws {
        try await withRoutes { client, token in
            let frame: JSONValue = [
                ["Command": "getPresentationInfo", "Data": [:], "GUID": "g1"],
                ["Command": "getCustomEventByKey", "Data": ["key": "none"], "GUID": "g2"],
            ]
            try await client.execute(uri: early(token, frame: frame) + "&as=json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "no-store")
                let texts = try #require(try JSONValue.parse(String(buffer: response.body)).arrayValue)
                let answers = try texts.map { try JSONValue.parse(try #require($0.stringValue)) }
                #expect(answers.map { $0["GUID"] } == ["g1", "g2"])
                #expect(answers.first?["Status"] == "Success" && answers.first?["Data"]?["presentationId"] == 1)
            }
        }
    }

    @Test("a slide is asked for again on every load, yet may be kept in the back/forward cache: no-cache, not no-store")
    func slideCachePolicy() async throws {
        try await withRoutes { client, _ in
            try await client.execute(uri: "/p/1/index.html", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.headers[.eTag] == nil && response.headers[.lastModified] == nil)
                #expect(String(buffer: response.body).contains("data-storybridge=\"1\""))
            }
        }
    }

    @Test("early requests the host does not take are refused with a clear status")
    func earlyRefusals() async throws {
        try await withRoutes { client, token in
            let read: JSONValue = ["Command": "getPresentationInfo", "Data": [:], "GUID": "g1"]
            let cases: [(String, HTTPResponse.Status, String)] = [
                (early("wrong", frame: read), .forbidden, "token"),
                (early(token, frame: read, slide: "missing.html"), .badRequest, "not a slide"),
                (early(token, frame: ["Command": "go", "Data": ["slideName": "products.html"], "GUID": "g2"]), .badRequest, "'go'"),
                (early(token, frame: ["Command": "getPresentationInfo", "Data": [:]]), .badRequest, "GUID"),
                (early(token, frame: .array([read, .string("not a request")])), .badRequest, "only requests"),
                (
                    early(
                        token,
                        frame: [
                            "Command": "getPresentationInfo", "Data": ["pad": .string(String(repeating: "x", count: 5000))], "GUID": "g3",
                        ]),
                    .contentTooLarge, "4096"
                ),
                ("/__storybridge/early?viewer=v1&presentation=1&slide=index.html&load=l1&token=\(token)", .badRequest, "'frame'"),
            ]
            for (uri, status, words) in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    #expect(String(buffer: response.body).contains(words), "\(String(buffer: response.body))")
                }
            }
        }
    }

    @Test("an early read of a page load its socket entered waits for its record: refused (409) until then, for the socket")
    func earlyReadWhileTheSocketRecords() async throws {
        try await withHostRoutes { client, token, host in
            // The socket entered the page (a first visit: a new session) and is still writing its records.
            let viewer = await host.viewers.lease(id: "v1")
            let entered = await host.enterPage(viewer, presentationId: 1, slide: "index.html", pageLoad: "l1")
            #expect(!entered.keepsSession)
            let read: JSONValue = ["Command": "getPresentationInfo", "Data": [:], "GUID": "g1"]
            try await client.execute(uri: early(token, frame: read), method: .get) { response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("being recorded"))
            }
            await host.recordPageLoad(entered)
            try await client.execute(uri: early(token, frame: read), method: .get) { response in
                #expect(response.status == .ok)
            }
            host.viewers.release(viewer)
        }
    }

    @Test("a page load is in the inspector feed, once, before an early read of it is answered, even while its socket has done nothing more")
    func feedHearsOfThePageBeforeItsEarlyReads() async throws {
        try await withHostRoutes { client, token, host in
            let (id, entries) = host.feed.subscribe()
            // The socket entered the page and its records are written; it has not gone on (under
            // load its task may wait there), and the page's early read comes in meanwhile.
            let viewer = await host.viewers.lease(id: "v1")
            let entered = await host.enterPage(viewer, presentationId: 1, slide: "index.html", pageLoad: "l1")
            await host.recordPageLoad(entered)
            let read: JSONValue = ["Command": "getPresentationInfo", "Data": [:], "GUID": "g1"]
            try await client.execute(uri: early(token, frame: read), method: .get) { response in
                #expect(response.status == .ok)
            }
            host.viewers.release(viewer)
            host.feed.unsubscribe(id)
            var kinds: [String] = []
            for await text in entries {
                let entry = try JSONValue.parse(text)
                guard let kind = entry["type"]?.stringValue, kind != "live" else { continue }
                kinds.append(kind == "exchange" ? "exchange \(entry["command"]?.stringValue ?? "?")" : kind)
            }
            // A recording of the feed puts the read on this slide, not on the one before.
            #expect(kinds == ["connection", "exchange getPresentationInfo"])
        }
    }

    @Test("a file asked for by its current version is cached for good; by another, revalidated")
    func versionedFiles() async throws {
        try await withRoutes { client, _ in
            let slide = try await client.execute(uri: "/p/1/index.html", method: .get) { String(buffer: $0.body) }
            let match = try #require(slide.firstMatch(of: /css\/demo\.css\?v=([0-9a-z-]+)/))
            try await client.execute(uri: "/p/1/css/demo.css?v=\(match.1)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            for uri in ["/p/1/css/demo.css?v=0-0", "/p/1/css/demo.css"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.cacheControl] == "no-cache", "\(uri)")
                }
            }
        }
    }

    @Test("a style sheet asked for by its version names its fonts, images and imports by version; a changed font changes its URL")
    func versionedStyleSheet() async throws {
        let deck = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-css-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: deck) }
        let files: [String: String] = [
            "index.html": "<html><head><link rel=\"stylesheet\" href=\"css/deck.css\"></head><body>deck</body></html>",
            "css/deck.css":
                "@import \"more.css\";\n@font-face { font-family: A; src: url('../fonts/a.woff2') format('woff2'); }\n"
                + "body { background: url(img/b.png); } /* url(img/none.png) */ .x { background: url(data:image/png;base64,AA); }",
            "css/more.css": "p { background: url( \"../fonts/a.woff2\" ); }",
            "css/img/b.png": "png", "fonts/a.woff2": "font one",
        ]
        for (path, text) in files {
            let file = deck.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        try await withHostRoutes(presentation: deck) { client, _, _ in
            func styleSheetURL() async throws -> String {
                let slide = try await client.execute(uri: "/p/1/index.html", method: .get) { String(buffer: $0.body) }
                return String(try #require(slide.firstMatch(of: /css\/deck\.css\?v=[0-9a-z-]+/)).0)
            }
            let first = try await styleSheetURL()
            let css = try await client.execute(uri: "/p/1/" + first, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(response.headers[.contentType] == "text/css")
                return String(buffer: response.body)
            }
            let font = try #require(css.firstMatch(of: /url\('\.\.\/fonts\/a\.woff2\?v=([0-9a-z-]+)'\) format/))
            #expect(css.contains("url(img/b.png?v="))
            #expect(css.firstMatch(of: /@import "more\.css\?v=[0-9a-z-]+-[0-9a-z]+";/) != nil, "an import's version covers its own files")
            #expect(css.contains("/* url(img/none.png) */") && css.contains("url(data:image/png;base64,AA)"))
            try await client.execute(uri: "/p/1/fonts/a.woff2?v=\(font.1)", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            // The imported style sheet, asked for by the version deck.css gives it, names the font too.
            let imported = try #require(css.firstMatch(of: /more\.css\?v=[0-9a-z-]+/))
            try await client.execute(uri: "/p/1/css/" + imported.0, method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(String(buffer: response.body).contains("url( \"../fonts/a.woff2?v=\(font.1)\" )"))
            }
            // A changed font: the slide names the style sheet by a new version; the old one is no
            // longer answered for good, and its bytes come as they are on disk.
            try "font two, longer".write(to: deck.appendingPathComponent("fonts/a.woff2"), atomically: true, encoding: .utf8)
            let second = try await styleSheetURL()
            #expect(second != first)
            try await client.execute(uri: "/p/1/" + first, method: .get) { response in
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(String(buffer: response.body) == files["css/deck.css"])
            }
        }
    }
}
