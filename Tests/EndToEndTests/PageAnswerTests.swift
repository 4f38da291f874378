import Foundation
import StoryBridge
import StoryBridgeTesting
import Synchronization
import Testing

/// A presentation whose slides ask for their name and navigation data as their first scripts run,
/// noting whether the bridge socket was open when each answer was handed to `StoryCLMHandler`
/// (where the page's own answers are made, inside the call; the callback runs later, when the
/// socket may have opened meanwhile). storyclm.js is inline, so the questions are asked in the same
/// task as the client opens its socket, which cannot be open yet.
private func askingPresentation() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-ask-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let library = String(decoding: try Data(contentsOf: repositoryRoot.appendingPathComponent("js/storyclm.js")), as: UTF8.self)
    for (name, next) in [("index.html", "second.html"), ("second.html", "index.html")] {
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"><meta name="clm" content="\(next)"><title>\(name)</title>
        <script>\(library)</script>
        <script>
        window.answers = [];
        // Command of each GUID sent, and whether the socket was open when its answer was handed over.
        var commands = {}, answeredOpen = {};
        var post = window.__storybridge.post;
        window.__storybridge.post = function (message) {
          if (message && message.GUID) { commands[message.GUID] = message.Command; }
          return post.apply(this, arguments);
        };
        var handler = StoryCLMBridge.StoryCLMHandler;
        StoryCLMBridge.StoryCLMHandler = function (text) {
          var guid = JSON.parse(text).GUID;
          answeredOpen[commands[guid]] = window.__storybridge.state.connected;
          return handler.apply(StoryCLMBridge, arguments);
        };
        StoryCLMBridge.Invoke('getNavigationData', {}, function (answer) {
          window.answers.push({ command: 'getNavigationData', data: answer.Data, status: answer.Status,
            connected: answeredOpen.getNavigationData });
        });
        StoryCLM.Presentation.GetCurrentSlideName(function (answer) {
          window.answers.push({ command: 'getCurrentSlideName', data: answer.data, status: answer.status,
            connected: answeredOpen.getCurrentSlideName });
        });
        </script></head><body><a id="next" href="\(next)">next</a></body></html>
        """.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return root
}

/// A Presentation module of an embedding program, answering the slide's name its own way.
private struct OwnSlideNames: BridgeModule {
    let name = "OwnSlideNames"
    var commands: CommandTable {
        BridgeCommand.fromMemory("getCurrentSlideName") { _, _ in ["slide": "named by the embedder"] }
    }
}

@Suite("Answers a page gives itself, in headless Chromium", .serialized)
struct PageAnswerTests {
    @Test("a slide's name and navigation data are answered before its socket opens, and the host still sees both exchanges")
    func answeredBeforeTheSocket() async throws {
        try await withBrowser(folders: [try askingPresentation()]) { host, page in
            let exchanges = ExchangeLog()
            host.runtime.bridge.observe { exchanges.add($0) }
            try await page.openSlide(on: host)
            let answers = try #require(
                try await page.waitFor("window.answers && window.answers.length === 2 && window.answers").arrayValue)
            #expect(answers[0] == ["command": "getNavigationData", "data": [:], "status": "Success", "connected": false])
            let name: JSONValue = [
                "command": "getCurrentSlideName", "data": ["slide": "index.html"], "status": "Success", "connected": false,
            ]
            #expect(answers[1] == name)
            // Reported once the socket is open: shown to the observers (inspector, metrics) like any other.
            // storyclm.js asks for the navigation data too, when it loads: three exchanges.
            try await exchanges.waitFor { $0.count >= 3 }
            let seen = exchanges.all.map { "\($0.request.command) \($0.response?.data.jsonString() ?? "-")" }
            #expect(seen.contains(#"getCurrentSlideName {"slide":"index.html"}"#))
            #expect(seen.contains("getNavigationData {}"))
            // The host's own answer is the same.
            try await page.evaluate(
                "StoryCLM.Presentation.GetCurrentSlideName(function (a) { window.hostAnswer = a.data; })")
            #expect(try await page.waitFor("window.hostAnswer") == ["slide": "index.html"])
        }
    }

    @Test("a command an embedding program answers with its own module goes to the host")
    func replacedModule() async throws {
        try await withBrowser(folders: [try askingPresentation()]) { host, page in
            try host.runtime.bridge.register(OwnSlideNames())
            try await page.openSlide(on: host)
            let answers = try #require(
                try await page.waitFor("window.answers && window.answers.length === 2 && window.answers").arrayValue)
            #expect(answers[0]["command"] == "getNavigationData" && answers[0]["connected"] == false)
            // Answered by the host's module (an early read, docs/PROTOCOL.md §3.9, or over the socket).
            #expect(answers[1]["command"] == "getCurrentSlideName" && answers[1]["status"] == "Success")
            #expect(answers[1]["data"] == ["slide": "named by the embedder"])
        }
    }
}

/// The exchanges a bridge's observer saw.
final class ExchangeLog: Sendable {
    private let exchanges = Mutex<[BridgeExchange]>([])
    func add(_ exchange: BridgeExchange) { exchanges.withLock { $0.append(exchange) } }
    var all: [BridgeExchange] { exchanges.withLock { $0 } }

    func waitFor(_ condition: ([BridgeExchange]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(all) {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
