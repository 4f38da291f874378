import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// A deck whose second slide reads, as its scripts run, what the first one wrote: the reads go
/// early (docs/PROTOCOL.md §3.9), as a script request, and are answered within the slide's load.
/// Each callback notes whether the socket was open and whether the load event had fired.
private func restoringPresentation() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-early-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let library = String(decoding: try Data(contentsOf: repositoryRoot.appendingPathComponent("js/storyclm.js")), as: UTF8.self)
    try """
    <!DOCTYPE html><html><head><meta charset="utf-8"><title>first</title><script>\(library)</script></head>
    <body><script>
    window.write = function () {
      StoryCLM.CustomEvents.Set('visited', 'first', function (answer) { window.written = answer.status; });
    };
    </script></body></html>
    """.write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    try """
    <!DOCTYPE html><html><head><meta charset="utf-8"><title>second</title><script>\(library)</script>
    <script>
    window.loaded = false;
    window.addEventListener('load', function () { window.loaded = true; });
    window.answers = [];
    function note(command) {
      return function (answer) {
        window.answers.push({ command: command, status: answer.status, data: answer.data,
          connected: window.__storybridge.state.connected, beforeLoad: !window.loaded });
      };
    }
    StoryCLM.CustomEvents.Get('visited', note('getCustomEventByKey'));
    StoryCLM.Presentation.GetInfo(note('getPresentationInfo'));
    // A write after the reads: it waits for their answers, then goes over the socket.
    StoryCLM.CustomEvents.Set('second', 'yes', note('setCustomEvent'));
    </script></head><body>second</body></html>
    """.write(to: root.appendingPathComponent("second.html"), atomically: true, encoding: .utf8)
    // A slide that restores its state once its document is parsed (DOMContentLoaded), and counts
    // the synchronous requests it makes to the host's early path.
    try """
    <!DOCTYPE html><html><head><meta charset="utf-8"><title>third</title><script>\(library)</script>
    <script>
    window.loaded = false;
    window.addEventListener('load', function () { window.loaded = true; });
    window.synchronousEarly = 0;
    var open = XMLHttpRequest.prototype.open;
    XMLHttpRequest.prototype.open = function (method, url, async) {
      if (async === false && /__storybridge\\/early/.test(url)) { window.synchronousEarly += 1; }
      return open.apply(this, arguments);
    };
    document.addEventListener('DOMContentLoaded', function () {
      StoryCLM.CustomEvents.Get('visited', function (answer) {
        window.restored = { status: answer.status, data: answer.data, connected: window.__storybridge.state.connected,
          beforeLoad: !window.loaded };
      });
    });
    </script></head><body>third</body></html>
    """.write(to: root.appendingPathComponent("third.html"), atomically: true, encoding: .utf8)
    return root
}

@Suite("Reads sent before the socket opens, in headless Chromium", .serialized)
struct EarlyReadsTests {
    /// Opens the first slide, lets it write the value the others read, then opens `slide`; the
    /// log holds every exchange from the moment before `slide` was asked for.
    private func openAfterTheFirstSlideWrote(_ slide: String, host: TestHost, page: BrowserPage) async throws -> ExchangeLog {
        try await page.openSlide(on: host)
        try await page.evaluate("window.write()")
        #expect(try await page.waitFor("window.written") == "Success")
        let exchanges = ExchangeLog()
        host.runtime.bridge.observe { exchanges.add($0) }
        try await page.navigate(to: host.slideURL(slide: slide))
        try await page.waitForSlide(slide)
        return exchanges
    }

    @Test("a slide's reads are answered within its load, once each, in order, and its page load is seen once")
    func readsWithinTheLoad() async throws {
        try await withBrowser(folders: [try restoringPresentation()]) { host, page in
            let exchanges = try await openAfterTheFirstSlideWrote("second.html", host: host, page: page)
            let answers = try #require(try await page.waitFor("window.answers.length === 3 && window.answers").arrayValue)
            #expect(answers.map { $0["command"] } == ["getCustomEventByKey", "getPresentationInfo", "setCustomEvent"])
            #expect(answers.allSatisfy { $0["status"] == "Success" })
            #expect(answers[0]["data"] == ["value": "first"])
            // The two reads were answered early, within the load; the write went over the socket.
            #expect(answers[0]["beforeLoad"] == true && answers[1]["beforeLoad"] == true)
            #expect(try await page.evaluate("window.__storybridge.state.earlyAnswers") == 2)
            #expect(answers[2]["connected"] == true)
            // Each request reached the host once.
            try await exchanges.waitFor { $0.filter { $0.request.command == "setCustomEvent" }.count >= 1 }
            let commands = exchanges.all.map(\.request.command)
            #expect(commands.filter { $0 == "getCustomEventByKey" }.count == 1)
            #expect(commands.filter { $0 == "getPresentationInfo" }.count == 1)
            #expect(commands.filter { $0 == "setCustomEvent" }.count == 1)
            // The page load was announced once (the early request), not again by its socket.
            let loads = host.runtime.feed.recentEntries.filter { $0["type"] == "connection" && $0["connected"] == true }
            #expect(loads.map { $0["slide"] } == ["index.html", "second.html"])
            // Nothing of the page load was written twice: the first slide's view once, one session.
            let views = try await recordedSlideViews(of: page, on: host) { !$0.isEmpty }
            #expect(views == ["index.html"])
            #expect(try await host.runtime.analytics.sessions().count == 1)
        }
    }

    @Test("a read sent once the document is parsed goes by a synchronous request, answered before the socket opens and the load ends")
    func readOnceParsed() async throws {
        try await withBrowser(folders: [try restoringPresentation()]) { host, page in
            let exchanges = try await openAfterTheFirstSlideWrote("third.html", host: host, page: page)
            let restored = try await page.waitFor("window.restored")
            #expect(restored["status"] == "Success" && restored["data"] == ["value": "first"])
            #expect(restored["connected"] == false && restored["beforeLoad"] == true)
            #expect(try await page.evaluate("window.synchronousEarly") == 1)
            #expect(try await page.evaluate("window.__storybridge.state.earlyAnswers") == 1)
            try await exchanges.waitFor { $0.contains { $0.request.command == "getCustomEventByKey" } }
            #expect(exchanges.all.filter { $0.request.command == "getCustomEventByKey" }.count == 1)
        }
    }

    @Test("an early request the host refuses is put back and answered over the socket, once")
    func refusedEarlyRequest() async throws {
        try await withBrowser(folders: [try restoringPresentation()]) { host, page in
            try await page.openSlide(on: host)
            try await page.evaluate("window.write()")
            #expect(try await page.waitFor("window.written") == "Success")
            // Every later document's early requests carry a wrong token: refused (403) by the host.
            try await page.devTools.send(
                "Page.addScriptToEvaluateOnNewDocument",
                [
                    "source": .string(
                        #"""
                        (function () {
                          var append = Element.prototype.appendChild;
                          window.refusedScripts = 0;
                          Element.prototype.appendChild = function (child) {
                            if (child instanceof HTMLScriptElement && /__storybridge\/early/.test(child.src)) {
                              child.src = child.src.replace(/token=[^&]*/, 'token=wrong');
                              window.refusedScripts += 1;
                            }
                            return append.call(this, child);
                          };
                        })();
                        """#)
                ])
            let exchanges = ExchangeLog()
            host.runtime.bridge.observe { exchanges.add($0) }
            try await page.navigate(to: host.slideURL(slide: "second.html"))
            try await page.waitForSlide("second.html")
            let answers = try #require(try await page.waitFor("window.answers.length === 3 && window.answers").arrayValue)
            #expect(try await page.evaluate("window.refusedScripts") == 1)
            #expect(answers.map { $0["command"] } == ["getCustomEventByKey", "getPresentationInfo", "setCustomEvent"])
            #expect(answers.allSatisfy { $0["status"] == "Success" && $0["connected"] == true })
            #expect(try await page.evaluate("window.__storybridge.state.earlyAnswers") == 0)
            #expect(answers[0]["data"] == ["value": "first"])
            try await exchanges.waitFor { $0.contains { $0.request.command == "setCustomEvent" } }
            let commands = exchanges.all.map(\.request.command)
            #expect(commands.filter { $0 == "getCustomEventByKey" }.count == 1)
            #expect(commands.filter { $0 == "getPresentationInfo" }.count == 1)
        }
    }
}
