import Foundation
import Logging
import StoryBridgeTesting
import Synchronization
import Testing

@testable import StoryBridge

/// The log lines a test's host wrote: level, message and metadata of each.
private final class LogRecorder: Sendable {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lines = Mutex<[Line]>([])

    var all: [Line] { lines.withLock { $0 } }

    /// A logger at `trace` whose every line lands here, with the metadata the logger carries.
    func logger() -> Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    fileprivate func append(_ line: Line) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            if let extra = event.metadata { merged.merge(extra) { _, new in new } }
            recorder.append(
                Line(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}

@Suite("Page console lines (consolelog)")
struct PageConsoleTests {
    /// A host on a manual clock whose log lines are recorded, and a viewer showing `index.html`.
    private func host() async throws -> (StoryBridgeHost, Viewer, ManualHostClock, LogRecorder) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let clock = ManualHostClock()
        let recorder = LogRecorder()
        let host = StoryBridgeHost(
            library: PresentationLibrary([presentation]), database: try temporaryDatabase(), clock: clock,
            logger: recorder.logger())
        let viewer = await host.viewers.viewer(id: "viewer-1")
        await host.pageLoaded(viewer, presentationId: presentation.id, slide: "index.html", pageLoad: "load-1")
        return (host, viewer, clock, recorder)
    }

    /// The console lines the host logged (their metadata names the page's level).
    private func consoleLines(_ recorder: LogRecorder) -> [LogRecorder.Line] {
        recorder.all.filter { $0.metadata["console"] != nil || $0.metadata["dropped"] != nil }
    }

    private func consoleEntries(_ host: StoryBridgeHost) -> [JSONValue] {
        host.feed.recentEntries.filter { $0["type"] == "console" }
    }

    @Test("each page level maps to a log level: log and info → info, debug → debug, warn → warning, error → error")
    func levelMapping() {
        #expect(PageConsoleLevel.log.loggerLevel == .info)
        #expect(PageConsoleLevel.info.loggerLevel == .info)
        #expect(PageConsoleLevel.debug.loggerLevel == .debug)
        #expect(PageConsoleLevel.warn.loggerLevel == .warning)
        #expect(PageConsoleLevel.error.loggerLevel == .error)
        #expect(PageConsoleLevel(name: " WARN ") == .warn)
        #expect(PageConsoleLevel(name: "trace") == .log)
        #expect(PageConsoleLevel(name: nil) == .log)
    }

    @Test("the Data forms: message, args, a bare string, an array, dropped alone")
    func dataForms() throws {
        #expect(try PageConsoleLine(data: ["level": "warn", "message": "low disk"]) == PageConsoleLine(level: .warn, message: "low disk"))
        #expect(
            try PageConsoleLine(data: ["level": "error", "args": ["failed:", 3, ["code": 7], .null, true]])
                == PageConsoleLine(level: .error, message: #"failed: 3 {"code":7} null true"#))
        #expect(try PageConsoleLine(data: "hello") == PageConsoleLine(level: .log, message: "hello"))
        #expect(try PageConsoleLine(data: ["a", 1]) == PageConsoleLine(level: .log, message: "a 1"))
        #expect(try PageConsoleLine(data: ["level": "shout", "message": "x"]) == PageConsoleLine(level: .log, message: "x"))
        #expect(try PageConsoleLine(data: ["message": ["n": 1]]) == PageConsoleLine(level: .log, message: #"{"n":1}"#))
        #expect(try PageConsoleLine(data: ["args": "one"]) == PageConsoleLine(level: .log, message: "one"))
        #expect(
            try PageConsoleLine(data: ["level": "info", "message": "m", "dropped": 12])
                == PageConsoleLine(level: .info, message: "m", droppedByPage: 12))
        #expect(try PageConsoleLine(data: ["dropped": 5]) == PageConsoleLine(level: .log, message: nil, droppedByPage: 5))
        #expect(throws: BridgeError.invalidData(field: "message", reason: "is missing: a console line needs 'message', 'args' or 'log'")) {
            try PageConsoleLine(data: ["level": "warn"])
        }
        #expect(throws: BridgeError.invalidData(field: "dropped", reason: "must be a whole number of zero or more, got -1")) {
            try PageConsoleLine(data: ["message": "m", "dropped": -1])
        }
    }

    @Test("storyclm.js 1.1.0's forms: {log}, {info}, {warn}, {error} (a stack or a copy of arguments), and {} for console.log()")
    func legacyForms() throws {
        #expect(try PageConsoleLine(data: ["log": "page 3"]) == PageConsoleLine(level: .log, message: "page 3"))
        #expect(try PageConsoleLine(data: ["log": ["a": 1]]) == PageConsoleLine(level: .log, message: #"{"a":1}"#))
        #expect(try PageConsoleLine(data: ["info": "i"], level: .info) == PageConsoleLine(level: .info, message: "i"))
        #expect(try PageConsoleLine(data: ["warn": .null], level: .warn) == PageConsoleLine(level: .warn, message: "null"))
        #expect(
            try PageConsoleLine(data: ["error": "Error: e\n    at f (a.js:1:2)"], level: .error)
                == PageConsoleLine(level: .error, message: "Error: e\n    at f (a.js:1:2)"))
        #expect(
            try PageConsoleLine(data: ["error": ["0": "failed", "1": 7, "2": ["x": true]]], level: .error)
                == PageConsoleLine(level: .error, message: #"failed 7 {"x":true}"#))
        // An object that is not a copy of `arguments` (a missing index) is one argument.
        #expect(
            try PageConsoleLine(data: ["error": ["0": "a", "2": "c"]], level: .error)
                == PageConsoleLine(level: .error, message: #"{"0":"a","2":"c"}"#))
        #expect(try PageConsoleLine(data: [:]) == PageConsoleLine(level: .log, message: "undefined"))
        #expect(try PageConsoleLine(data: [:], level: .warn) == PageConsoleLine(level: .warn, message: "undefined"))
        // The command's level unless Data names one; the forms of consolelog work under each.
        #expect(try PageConsoleLine(data: "bare", level: .info) == PageConsoleLine(level: .info, message: "bare"))
        #expect(
            try PageConsoleLine(data: ["level": "error", "message": "m"], level: .info) == PageConsoleLine(level: .error, message: "m"))
        // The member is the command's own: consoleinfo {log: …} holds no line.
        #expect(throws: BridgeError.invalidData(field: "message", reason: "is missing: a console line needs 'message', 'args' or 'info'")) {
            try PageConsoleLine(data: ["log": "x"], level: .info)
        }
    }

    @Test("consoleinfo, consolewarn and consoleerror are logged at their level and shown as lines, not requests")
    func legacyCommands() async throws {
        let (host, viewer, _, recorder) = try await host()
        let context = host.context(for: viewer)
        for (command, member) in [("consoleinfo", "info"), ("consolewarn", "warn"), ("consoleerror", "error")] {
            let answer = await host.bridge.handle(
                BridgeRequest(command: command, data: .object([member: .string(member + " line")]), guid: "G-" + member), context: context)
            #expect(answer == .success(guid: "G-" + member, data: ["logged": true]))
        }
        #expect(consoleLines(recorder).map(\.level) == [.info, .warning, .error])
        #expect(consoleEntries(host).map { $0["message"] } == ["info line", "warn line", "error line"])
        #expect(host.feed.recentEntries.allSatisfy { ($0["command"]?.stringValue ?? "").hasPrefix("console") == false })
        #expect(ConsoleLogModule.isConsoleCommand("consolewarn"))
        #expect(!ConsoleLogModule.isConsoleCommand("consolefoo"))
        #expect(!ConsoleLogModule.isConsoleCommand("getAppInfo"))
    }

    @Test("a line is logged at the page's level with presentation, slide and viewer, and shown in the feed, not as a request")
    func logsAtLevel() async throws {
        let (host, viewer, _, recorder) = try await host()
        let context = host.context(for: viewer)
        let answer = await host.bridge.handle(
            BridgeRequest(command: "consolelog", data: ["level": "warn", "message": "x"], guid: "G1"), context: context)
        #expect(answer == .success(guid: "G1", data: ["logged": true]))
        #expect(await host.bridge.handle(BridgeRequest(command: "consolelog", data: "plain"), context: context) == nil)
        _ = await host.bridge.handle(BridgeRequest(command: "consolelog", data: ["level": "debug", "args": ["d", 1]]), context: context)
        let lines = consoleLines(recorder)
        #expect(lines.map(\.level) == [.warning, .info, .debug])
        #expect(lines.map(\.message) == ["x", "plain", "d 1"])
        #expect(lines.first?.metadata["presentation"] == "1")
        #expect(lines.first?.metadata["slide"] == "index.html")
        #expect(lines.first?.metadata["viewer"] == "viewer-1")
        #expect(lines.map { $0.metadata["console"] } == ["warn", "log", "debug"])
        let entries = consoleEntries(host)
        #expect(entries.map { $0["level"] } == ["warn", "log", "debug"])
        #expect(entries.first?["viewer"] == "viewer-1")
        #expect(entries.first?["slide"] == "index.html")
        #expect(entries.first?["presentation"] == 1)
        #expect(entries.first?["dropped"] == 0)
        #expect(host.feed.recentEntries.allSatisfy { $0["command"] != "consolelog" })
        // A line the host cannot read is answered 400 and shows as the failed request it is.
        let refused = await host.bridge.handle(BridgeRequest(command: "consolelog", data: ["level": "warn"], guid: "G2"), context: context)
        #expect(refused?.errorCode == 400)
        #expect(host.feed.recentEntries.filter { $0["command"] == "consolelog" }.count == 1)
    }

    @Test("a line with line breaks is one log line; the feed keeps the text as it is")
    func lineBreaks() async throws {
        let (host, viewer, _, recorder) = try await host()
        host.pageConsole.receive(PageConsoleLine(level: .error, message: "Error: no\n  at a.js:1"), context: host.context(for: viewer))
        #expect(consoleLines(recorder).first?.message == #"Error: no\n  at a.js:1"#)
        #expect(consoleEntries(host).first?["message"] == "Error: no\n  at a.js:1")
    }

    @Test("past the burst, lines are dropped and counted; the count is told once, as a warning, when lines pass again")
    func rateLimit() async throws {
        let (host, viewer, clock, recorder) = try await host()
        let context = host.context(for: viewer)
        let limit = host.pageConsole.settings.limit
        #expect(limit == ConsoleRateLimit(linesPerSecond: 20, burst: 50))
        var passed = 0
        for index in 0..<200 where host.pageConsole.receive(PageConsoleLine(level: .log, message: "line \(index)"), context: context) {
            passed += 1
        }
        #expect(passed == 50)
        #expect(consoleLines(recorder).count == 50)
        // 100 ms later two tokens are back: the first line that passes brings the count first.
        clock.advance(by: .milliseconds(100))
        #expect(host.pageConsole.receive(PageConsoleLine(level: .info, message: "after"), context: context))
        let lines = consoleLines(recorder)
        #expect(lines.count == 52)
        #expect(lines[50].level == .warning)
        #expect(lines[50].message == "150 console lines from this page were dropped (rate limit)")
        #expect(lines[50].metadata["dropped"] == "150")
        #expect(lines[51].message == "after")
        let summaries = consoleEntries(host).filter { $0["dropped"] != 0 }
        #expect(summaries.count == 1)
        #expect(summaries.first?["dropped"] == 150)
        #expect(summaries.first?["level"] == "warn")
        // The one token left passes one more line, with no second count.
        #expect(host.pageConsole.receive(PageConsoleLine(level: .log, message: "again"), context: context))
        #expect(!host.pageConsole.receive(PageConsoleLine(level: .log, message: "over"), context: context))
        #expect(consoleLines(recorder).count == 53)
        // A quiet second refills 20 lines, not more; the first brings the count of the line dropped.
        clock.advance(by: .seconds(1))
        passed = 0
        for _ in 0..<30 where host.pageConsole.receive(PageConsoleLine(level: .log, message: "burst"), context: context) { passed += 1 }
        #expect(passed == 20)
        #expect(consoleLines(recorder)[53].message == "1 console line from this page was dropped (rate limit)")
    }

    @Test("a page that keeps flooding gets at most one count a second")
    func countsThrottled() async throws {
        let (host, viewer, clock, recorder) = try await host()
        let context = host.context(for: viewer)
        func send(_ count: Int) {
            for _ in 0..<count { host.pageConsole.receive(PageConsoleLine(level: .log, message: "f"), context: context) }
        }
        func counts() -> [String] { consoleLines(recorder).compactMap { $0.metadata["dropped"] } }
        send(60)
        clock.advance(by: .milliseconds(100))
        send(6)  // two tokens: the first line brings the count of 10, four are dropped
        #expect(counts() == ["10"])
        clock.advance(by: .milliseconds(100))
        send(1)  // passes, but the last count is 0.1 s old: the four wait
        #expect(counts() == ["10"])
        clock.advance(by: .seconds(1))
        send(1)
        #expect(counts() == ["10", "4"])
    }

    @Test("each page has its own limit; a page that leaves has its dropped lines told and is forgotten")
    func perPageAndDisconnect() async throws {
        let (host, viewer, _, recorder) = try await host()
        let other = await host.viewers.viewer(id: "viewer-2")
        for _ in 0..<55 { host.pageConsole.receive(PageConsoleLine(level: .log, message: "chatty"), context: host.context(for: viewer)) }
        #expect(host.pageConsole.receive(PageConsoleLine(level: .log, message: "quiet"), context: host.context(for: other)))
        #expect(host.pageConsole.pageCount == 2)
        host.pageConsole.pageClosed(host.context(for: viewer))
        host.pageConsole.pageClosed(host.context(for: other))
        #expect(host.pageConsole.pageCount == 0)
        let summaries = consoleLines(recorder).filter { $0.metadata["dropped"] != nil }
        #expect(summaries.map(\.message) == ["5 console lines from this page were dropped (rate limit)"])
        #expect(summaries.first?.metadata["viewer"] == "viewer-1")
    }

    @Test("the lines a page dropped itself are added to the count; a report of them alone takes no token")
    func pageReportedDrops() async throws {
        let (host, viewer, clock, recorder) = try await host()
        let context = host.context(for: viewer)
        #expect(host.pageConsole.receive(PageConsoleLine(level: .log, message: "m", droppedByPage: 7), context: context))
        for _ in 0..<60 { host.pageConsole.receive(PageConsoleLine(level: .log, message: "n"), context: context) }
        // A report takes no token: over the limit it is still counted, and told once the last
        // count is a second old.
        #expect(host.pageConsole.receive(PageConsoleLine(level: .log, message: nil, droppedByPage: 100), context: context))
        #expect(consoleLines(recorder).compactMap { $0.metadata["dropped"] } == ["7"])
        clock.advance(by: .seconds(1))
        #expect(host.pageConsole.receive(PageConsoleLine(level: .log, message: nil, droppedByPage: 1), context: context))
        let counts = consoleLines(recorder).compactMap { $0.metadata["dropped"] }
        #expect(counts == ["7", "112"])
    }
}
