import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// `consolelog` frames sent over a real bridge socket: shown in the inspector's feed and written
/// to serve's log at the page's level; the client is told the limit, or nothing with
/// `--page-console off`.
@Suite("Page console lines over the socket")
struct PageConsoleServeTests {
    @Test("consolelog frames over the socket become console entries of the feed, at the page's level, and not requests")
    func feedEntries() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer(viewerId: "console-page")
            viewer.send(BridgeRequest(command: "consolelog", data: ["level": "warn", "message": "x"]))
            viewer.send(BridgeRequest(command: "consolelog", data: "plain text"))
            viewer.send(BridgeRequest(command: "consolelog", data: ["level": "error", "args": ["failed", ["code": 7]]]))
            let answer = try await viewer.request("consolelog", data: ["level": "info", "message": "answered"])
            #expect(answer.status == .success)
            #expect(answer.data == ["logged": true])
            let entries = host.runtime.feed.recentEntries.filter { $0["type"] == "console" }
            #expect(entries.map { $0["level"] } == ["warn", "log", "error", "info"])
            #expect(entries.map { $0["message"] } == ["x", "plain text", #"failed {"code":7}"#, "answered"])
            #expect(entries.allSatisfy { $0["viewer"] == "console-page" && $0["slide"] == "index.html" && $0["presentation"] == 1 })
            #expect(host.runtime.feed.recentEntries.allSatisfy { $0["command"] != "consolelog" })
            await viewer.close()
        }
    }

    @Test("the slide's client tag carries the limit: 20 lines a second, bursts of 50")
    func tagCarriesLimit() async throws {
        try await withHost { host in
            let slide = try await httpGet(host.slideURL())
            #expect(String(decoding: slide.body, as: UTF8.self).contains(#"data-page-console="20 50""#))
        }
    }

    @Test("storybridge serve logs each line at the page's level, and the lines over the limit as one warning when the page leaves")
    func serveLog() async throws {
        let folder = try makePresentationFolder(["index.html": "<!DOCTYPE html><title>start</title>"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try await ServeProcess.start([
            folder.path, "--port", "0", "--no-watch", "--log-level", "debug", "--log-format", "json",
        ])
        let viewer = try await serve.connectViewer(viewerId: "logged-page")
        let sending = ContinuousClock.now
        for (level, text) in [("log", "a log"), ("info", "an info"), ("debug", "a debug"), ("warn", "a warn"), ("error", "an error")] {
            viewer.send(BridgeRequest(command: "consolelog", data: ["level": .string(level), "message": .string(text)]))
        }
        for index in 0..<100 { viewer.send(BridgeRequest(command: "consolelog", data: .string("chatty \(index)"))) }
        _ = try await viewer.request("getAppInfo")
        // The limiter gives back 20 lines a second: what passes beyond the burst depends on how long
        // the 105 frames took to arrive (a few ms when idle, a second or more on a loaded machine).
        let arriving = ContinuousClock.now - sending
        await viewer.close()
        // A count of dropped lines, in either wording ("1 console line … was dropped" or "N console
        // lines … were dropped"): its count, or nil for any other entry.
        func droppedCount(_ entry: JSONValue) -> Int? {
            guard let count = Int(entry["metadata"]?["dropped"]?.stringValue ?? ""),
                entry["message"]?.stringValue == PageConsole.droppedMessage(count)
            else { return nil }
            return count
        }
        // Lines that passed plus lines counted as dropped, in serve's log so far. The count told when
        // the page leaves comes after the one told when a line passed again: wait for all 100.
        func accounted(_ log: String) -> Int {
            log.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }.reduce(0) { sum, entry in
                if entry["message"]?.stringValue?.hasPrefix("chatty ") == true { return sum + 1 }
                return sum + (droppedCount(entry) ?? 0)
            }
        }
        try await waitUntil { accounted(serve.errors) >= 100 }
        #expect(await serve.interrupt() == 0)
        // Every line of serve's standard error is a JSON log line; one that is not is named.
        let lines = serve.errors.split(separator: "\n").map(String.init)
        let entries = lines.compactMap { try? JSONValue.parse($0) }
        #expect(entries.count == lines.count, "not JSON: \(lines.filter { (try? JSONValue.parse($0)) == nil })")
        func level(of message: String) -> JSONValue? { entries.first { $0["message"] == .string(message) }?["level"] }
        #expect(level(of: "a log") == "info")
        #expect(level(of: "an info") == "info")
        #expect(level(of: "a debug") == "debug")
        #expect(level(of: "a warn") == "warning")
        #expect(level(of: "an error") == "error")
        let warn = try #require(entries.first { $0["message"] == "a warn" })
        #expect(warn["metadata"]?["viewer"] == "logged-page")
        #expect(warn["metadata"]?["slide"] == "index.html")
        #expect(warn["metadata"]?["presentation"] == "1")
        #expect(warn["metadata"]?["console"] == "warn")
        // No line was taken for a failed request.
        #expect(!entries.contains { $0["metadata"]?["command"] == "consolelog" && $0["level"] == "warning" })
        // Every line is either logged or counted: the burst passes (less the five lines above, plus
        // the tokens given back while the frames arrived), the rest is counted: once when the first
        // line passes again, and the rest when the page leaves.
        let chatty = entries.filter { $0["message"]?.stringValue?.hasPrefix("chatty ") == true }.count
        let summaries = entries.filter { droppedCount($0) != nil }
        #expect((1...2).contains(summaries.count))
        #expect(summaries.allSatisfy { $0["level"] == "warning" && $0["metadata"]?["viewer"] == "logged-page" })
        let dropped = summaries.compactMap(droppedCount).reduce(0, +)
        #expect(chatty + dropped == 100)
        let givenBack = Int((Double(arriving.components.attoseconds) / 1e18 + Double(arriving.components.seconds)) * 20) + 1
        #expect((45...(50 + givenBack)).contains(chatty), "\(chatty) chatty lines passed in \(arriving)")
    }

    @Test("with --page-console off the client is not told to forward, and a page's own consolelog is still taken")
    func forwardingOff() async throws {
        let folder = try makePresentationFolder(["index.html": "<!DOCTYPE html><title>start</title>"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try await ServeProcess.start([folder.path, "--port", "0", "--no-watch", "--page-console", "off"])
        let slide = try await httpGet(serve.baseURL + "/p/1/index.html")
        let html = String(decoding: slide.body, as: UTF8.self)
        #expect(html.contains("data-storybridge"))
        #expect(!html.contains("data-page-console"))
        let viewer = try await serve.connectViewer()
        #expect(try await viewer.request("consolelog", data: "still taken").data == ["logged": true])
        await viewer.close()
        #expect(await serve.interrupt() == 0)
        #expect(serve.errors.contains("still taken"))
    }
}
