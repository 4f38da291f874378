import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small library written for this test in the style of the oldest storyclm.js generations (not
/// their code): the doorbell queue of every generation, and the debug console of 1.1.0, which
/// replaces `window.console` by an object that sends each call as its own command
/// (`consolelog {log}`, `consoleinfo {info}`, `consolewarn {warn}`, `consoleerror {error}`, the
/// error as its stack or the call's `arguments`), with no callback and so no GUID.
private let oldStyleLibrarySource = """
    (function () {
      var queue = [], waiting = {}, sent = 0;
      var bell = document.createElement('iframe');
      bell.style.display = 'none';
      document.documentElement.appendChild(bell);
      function invoke(command, data, done) {
        var message = { Command: command, Data: data };
        if (done) { sent += 1; message.GUID = 'GUID_' + sent + '0123456789abcdef0123456789abcdef'; waiting[message.GUID] = done; }
        queue.push(message);
        bell.src = 'storyclm:SCLM_QUEUE';
      }
      window.StoryCLMBridge = {
        Invoke: invoke,
        GetQueue: function () { var text = JSON.stringify(queue); queue = []; return text; },
        StoryCLMHandler: function (text) {
          setTimeout(function () {
            var answer = JSON.parse(text), done = answer && answer.GUID && waiting[answer.GUID];
            if (typeof done === 'function') { delete waiting[answer.GUID]; done(answer); }
          }, 1);
        }
      };
      window.console = {
        log: function (log) { invoke('consolelog', { log: log }); },
        info: function (info) { invoke('consoleinfo', { info: info }); },
        warn: function (warn) { invoke('consolewarn', { warn: warn }); },
        error: function (error) {
          if (typeof error.stack !== 'undefined') { invoke('consoleerror', { error: error.stack }); }
          else { invoke('consoleerror', { error: arguments }); }
        }
      };
    })();
    """

/// A folder holding `files` (path → text), made for one test.
private func folder(_ files: [String: String]) throws -> URL {
    try scratchFolder("sb-e2e-generations", files: files)
}

private let plainSlide = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>second</title></head><body>second</body></html>"

/// The feed's console entries once `count` of them are there (polled; a failure after 20 s).
private func consoleEntries(of host: TestHost, count: Int) async throws -> [JSONValue] {
    try await consoleEntries(of: host, until: { $0.count >= count }) {
        "only \($0.count) console entries: \($0.map { $0.jsonString() })"
    }
}

@Suite("Old generations of storyclm.js and the page console in headless Chromium", .serialized)
struct StoryCLMGenerationsBrowserTests {
    @Test(
        "a page on a library of 1.1.0's style: its console lines reach the host and the browser's console, and openPresentation {presId} opens the other deck"
    )
    func oldStyleLibrary() async throws {
        let first = try folder([
            "index.html":
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>old</title><script src=\"js/storyclm-old.js\"></script></head><body>old</body></html>",
            "js/storyclm-old.js": oldStyleLibrarySource,
        ])
        let second = try folder(["index.html": plainSlide])
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        try await withBrowser(folders: [first, second], catalogs: [.init(id: 1, name: "Old"), .init(id: 2, name: "Second")]) {
            host, page in
            try await page.navigate(to: host.slideURL())
            try await page.waitForSlide("index.html")
            _ = try await page.evaluate(
                "console.log('page 3'); console.log({zoom: 2}); console.info('turned'); console.warn('low');"
                    + " console.error(new Error('boom')); console.error('failed', 7); console.log(); true")
            let entries = try await consoleEntries(of: host, count: 7)
            #expect(entries.map { $0["level"] } == ["log", "log", "info", "warn", "error", "error", "log"])
            let messages = entries.map { $0["message"]?.stringValue ?? "" }
            #expect(messages.count == 7)
            if messages.count == 7 {
                #expect(Array(messages[0...3]) == ["page 3", #"{"zoom":2}"#, "turned", "low"])
                #expect(messages[4].hasPrefix("Error: boom"))
                #expect(messages[5] == "failed 7")
                #expect(messages[6] == "undefined")
            }
            // None was refused: no failed request of a console command in the feed.
            #expect(!host.runtime.feed.recentEntries.contains { ($0["command"]?.stringValue ?? "").hasPrefix("console") })
            // The browser's console shows them too: the client echoes the lines the library took
            // from it, with the browser's own methods (so they are not forwarded a second time).
            var shown: [(String, String)] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while shown.count < 7, ContinuousClock.now < deadline {
                guard let event = await page.devTools.events.next(timeout: deadline - ContinuousClock.now) else { break }
                guard event["method"] == "Runtime.consoleAPICalled", let params = event["params"] else { continue }
                let args = params["args"]?.arrayValue ?? []
                let text = args.map { $0["value"]?.stringValue ?? $0["description"]?.stringValue ?? $0["type"]?.stringValue ?? "" }
                shown.append((params["type"]?.stringValue ?? "", text.joined(separator: " ")))
            }
            #expect(shown.map(\.0) == ["log", "log", "info", "warning", "error", "error", "log"])
            if shown.count == 7 {
                #expect(shown[0].1 == "page 3")
                #expect(shown[2].1 == "turned")
                #expect(shown[3].1 == "low")
                #expect(shown[4].1.hasPrefix("Error: boom"))
                #expect(shown[5].1 == "failed 7")
                #expect(shown[6].1 == "undefined")
            }
            #expect(host.runtime.feed.recentEntries.filter { $0["type"] == "console" }.count == 7)

            // The 2016 library's Presentation.Open: openPresentation {presId}, with a callback.
            _ = try await page.evaluate("StoryCLMBridge.Invoke('openPresentation', {presId: 2}, function () {}); true")
            _ = try await page.waitFor("location.pathname === '/p/2/index.html' && document.readyState === 'complete'")
            try await page.waitForSlide("index.html")
            #expect(try await page.evaluate("String(window.__storybridge.presentation)") == "2")
        }
    }

    @Test("client.js links a source map that puts it on the ignore list: a content console.log's first frame off it is the content's line")
    func clientIgnoreListed() async throws {
        let deck = try folder([
            "index.html":
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>map</title><script src=\"js/content.js\"></script></head><body>map</body></html>",
            "js/content.js": "// content of the deck\nfunction report() {\n  console.log('from content');\n}\n",
        ])
        defer { try? FileManager.default.removeItem(at: deck) }
        try await withBrowser(folders: [deck]) { host, page in
            try await page.devTools.send("Debugger.enable")
            try await page.navigate(to: host.slideURL())
            try await page.waitForSlide("index.html")
            _ = try await page.evaluate("report(); true")

            // The scripts the page parsed, and the console call, from the DevTools events.
            var scripts: [String: (url: String, sourceMapURL: String)] = [:]
            var call: JSONValue?
            let deadline = ContinuousClock.now + .seconds(20)
            while call == nil, ContinuousClock.now < deadline {
                guard let event = await page.devTools.events.next(timeout: deadline - ContinuousClock.now) else { break }
                let params = event["params"] ?? .null
                switch event["method"]?.stringValue {
                case "Debugger.scriptParsed":
                    if let id = params["scriptId"]?.stringValue {
                        scripts[id] = (params["url"]?.stringValue ?? "", params["sourceMapURL"]?.stringValue ?? "")
                    }
                case "Runtime.consoleAPICalled":
                    if params["args"]?.arrayValue?.first?["value"] == "from content" { call = params }
                default:
                    break
                }
            }
            let consoleCall = try #require(call, "no console call seen")

            // client.js is linked to its map, which the host serves.
            let client = try #require(scripts.values.first { $0.url.contains("/__storybridge/client.js") })
            #expect(client.sourceMapURL == "client.js.map")
            let mapURL = try #require(URL(string: client.sourceMapURL, relativeTo: URL(string: client.url))?.absoluteURL)
            #expect(mapURL.path == "/__storybridge/client.js.map")
            let (body, response) = try await URLSession(configuration: .ephemeral).data(from: mapURL)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let map = try JSONValue.parse(String(decoding: body, as: UTF8.self))
            #expect(map["version"] == 3)
            #expect(map["x_google_ignoreList"] == [0])
            #expect(map["sources"]?.arrayValue?.count == 1)
            // An identity map of the file served: one mapping per line.
            let (served, _) = try await URLSession(configuration: .ephemeral).data(from: try #require(URL(string: client.url)))
            let lines = String(decoding: served, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(map["mappings"]?.stringValue?.split(separator: ";", omittingEmptySubsequences: false).count == lines)
            #expect(map["sourcesContent"]?.arrayValue?.first?.stringValue == String(decoding: served, as: UTF8.self))

            // The scripts on the ignore list: those whose map says so (only client.js here).
            var ignored: Set<String> = []
            for (id, script) in scripts where !script.sourceMapURL.isEmpty {
                guard let url = URL(string: script.sourceMapURL, relativeTo: URL(string: script.url))?.absoluteURL else { continue }
                let (text, _) = try await URLSession(configuration: .ephemeral).data(from: url)
                let list = (try? JSONValue.parse(String(decoding: text, as: UTF8.self)))?["x_google_ignoreList"]?.arrayValue ?? []
                if list.contains(0) { ignored.insert(id) }
            }
            let frames = consoleCall["stackTrace"]?["callFrames"]?.arrayValue ?? []
            // The wrapper is the call's first frame; off the ignore list, the content's own line.
            #expect(frames.first?["url"]?.stringValue?.contains("/__storybridge/client.js") == true)
            let first = try #require(frames.first { !ignored.contains($0["scriptId"]?.stringValue ?? "") })
            // (Its URL names its version, docs/PROTOCOL.md §1.3: `content.js?v=…`.)
            let path = first["url"]?.stringValue?.split(separator: "?").first.map(String.init)
            #expect(path?.hasSuffix("/p/1/js/content.js") == true, "\(first.jsonString())")
            #expect(first["lineNumber"] == 2)
            #expect(first["functionName"] == "report")
        }
    }
}
