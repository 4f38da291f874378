import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// A presentation of one plain slide, written for the test.
private func plainPresentation() throws -> URL {
    try scratchFolder(
        "sb-e2e-console",
        files: ["index.html": "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>console</title></head><body>console</body></html>"]
    )
}

@Suite("A page's console in headless Chromium", .serialized)
struct PageConsoleBrowserTests {
    @Test("console.warn(\"x\") reaches the inspector's feed as a warn line, and the console the client wrapped still gets the call")
    func warnReachesFeed() async throws {
        try await withBrowser(folders: [try plainPresentation()]) { host, page in
            _ = try await page.devTools.send(
                "Page.addScriptToEvaluateOnNewDocument",
                [
                    "source": .string(
                        "window.__consoleSeen = []; ['log', 'warn', 'error'].forEach(function (level) { var original = console[level];"
                            + " console[level] = function (first) { window.__consoleSeen.push([level, String(first)]);"
                            + " return original.apply(this, arguments); }; });")
                ])
            try await page.openSlide(on: host)
            _ = try await page.evaluate(
                "window.__consoleSeen = []; console.warn('x'); console.error(new Error('boom')); console.log('n', 1, {a: [2]}); true")
            let entries = try await consoleEntries(of: host) { $0.count >= 3 }
            #expect(entries.first { $0["message"] == "x" }?["level"] == "warn")
            let error = try #require(entries.first { $0["level"] == "error" })
            #expect(error["message"]?.stringValue?.hasPrefix("Error: boom") == true)
            #expect(entries.contains { $0["level"] == "log" && $0["message"] == #"n 1 {"a":[2]}"# })
            #expect(entries.allSatisfy { $0["slide"] == "index.html" && $0["presentation"] == 1 })
            // The console the client found (here a recorder put in before any script of the page,
            // standing for the browser's own) still got each call, with its arguments.
            let seen = try await page.evaluate("JSON.stringify(window.__consoleSeen)").stringValue ?? ""
            #expect(seen == #"[["warn","x"],["error","Error: boom"],["log","n"]]"#)
        }
    }

    @Test("a loop of 10,000 console.log lines sends the burst and what the rate adds, then one count of the rest")
    func loopIsLimited() async throws {
        try await withBrowser(folders: [try plainPresentation()]) { host, page in
            try await page.openSlide(on: host)
            let seconds =
                try await page.evaluate(
                    "(function(){var t=performance.now();for(var i=0;i<10000;i++){console.log('loop '+i);}return (performance.now()-t)/1000;})()"
                ).doubleValue ?? 0
            func loopLines(_ entries: [JSONValue]) -> Int {
                entries.filter { $0["message"]?.stringValue?.hasPrefix("loop ") == true }.count
            }
            func counted(_ entries: [JSONValue]) -> Int { entries.compactMap { $0["dropped"]?.intValue }.reduce(0, +) }
            // The count comes a second after the first drop; the host's own drops, if any, when
            // the page leaves.
            _ = try await consoleEntries(of: host) { counted($0) > 0 }
            try await page.navigate(to: "about:blank")
            let entries = try await consoleEntries(of: host) { loopLines($0) + counted($0) == 10_000 }
            let lines = loopLines(entries)
            let counts = entries.filter { ($0["dropped"]?.intValue ?? 0) > 0 }
            #expect(lines + counted(entries) == 10_000)
            #expect(lines >= 50)
            #expect(lines <= 50 + Int((20 * seconds).rounded(.up)) + 1, "\(lines) lines in a loop of \(seconds) s")
            // At most one count a second from the client while the loop runs (one more for its
            // last second) and the host's own on leaving: a flood gives a few lines, not thousands.
            #expect(counts.count >= 1 && counts.count <= 2 + Int(seconds.rounded(.up)), "\(counts.count) count lines")
            #expect(counts.allSatisfy { $0["level"] == "warn" })
            #expect(
                counts.allSatisfy {
                    $0["message"]?.stringValue?.hasSuffix(" from this page were dropped (rate limit)") == true
                        || $0["message"]?.stringValue?.hasSuffix(" from this page was dropped (rate limit)") == true
                })
            print(
                "page console: a loop of 10,000 console.log took \(seconds) s in the page; \(lines) lines forwarded, counts \(counts.map { $0["dropped"]?.intValue ?? 0 })"
            )
        }
    }
}
