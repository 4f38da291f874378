import AsyncHTTPClient
import Foundation
import NIOCore
import StoryBridge
import StoryBridgeTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs `storybridge serve --bench-echo` as a child process on a generated presentation with a
/// 20 KB slide and measures it from this process, in one run.
struct RoundTripBenchmark {
    let quick: Bool
    /// Only the pipelined comparison (for working on the command path, or profiling the host).
    var pipelinedOnly = false
    /// Pipelined rounds of each path, instead of the default.
    var rounds: Int?
    /// Skip the echo rounds (profiling the bridge alone).
    var bridgeOnly = false
    /// Skip the bridge rounds (profiling the host's echo alone, to compare with the bridge).
    var echoOnly = false
    /// Calls per viewer in a pipelined round, instead of the default (more calls make connecting
    /// a smaller share of a profile).
    var calls: Int?

    var sequentialCount: Int { quick ? 1_000 : 10_000 }
    var pipelinedViewers: Int { 100 }
    var pipelinedPerViewer: Int { calls ?? (quick ? 50 : 300) }
    /// Echo and bridge pipelined runs alternate this many times each; the medians are compared, so
    /// a burst of other work on the machine cannot decide the ratio.
    var pipelinedRounds: Int { rounds ?? (quick ? 3 : 7) }
    var idleViewers: Int { quick ? 200 : 1_000 }
    var staticSeconds: Double { quick ? 2 : 10 }

    func run() async throws {
        Self.raiseFileLimit()
        let folder = try Self.makePresentation()
        let host = try await ServeChild.start(folder: folder, extraArguments: ["--max-connections", "5000"])
        defer {
            host.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        let base = host.base
        print("host: storybridge serve (pid \(host.pid)) on \(base); client: this process (SwiftNIO WebSocket client)")
        let bridgeURL = { (viewer: String) in host.bridgeURL(viewer: viewer) }
        let echoURL = host.echoURL
        let request = #"{"Command":"getCurrentSlideName","Data":{},"GUID":"GUID_1"}"#

        // Warm up both paths.
        _ = try await WebSocketLoad.sequential(url: bridgeURL("warm"), request: request, count: 500, skipHello: true)
        _ = try await WebSocketLoad.sequential(url: echoURL, request: request, count: 500, skipHello: false)

        var echoRuns: [WebSocketLoad.PipelinedRun] = []
        var bridgeRuns: [WebSocketLoad.PipelinedRun] = []
        func runPipelined() async throws {
            // The bridge viewers reconnect as the same page loads each round, so rounds after the
            // first start no sessions (connecting is not timed either way).
            for _ in 0..<pipelinedRounds {
                if !bridgeOnly {
                    echoRuns.append(
                        try await WebSocketLoad.pipelined(
                            urls: (0..<pipelinedViewers).map { _ in echoURL }, request: request, perViewer: pipelinedPerViewer,
                            skipHello: false,
                            hostPid: host.pid))
                }
                if !echoOnly {
                    bridgeRuns.append(
                        try await WebSocketLoad.pipelined(
                            urls: (0..<pipelinedViewers).map { bridgeURL("pipe-\($0)") }, request: request,
                            perViewer: pipelinedPerViewer, skipHello: true, hostPid: host.pid))
                }
            }
        }
        func cpuLine() -> String {
            String(
                format: "CPU per message (median): host %.1f µs echo / %.1f µs bridge; client %.1f µs echo / %.1f µs bridge",
                median(echoRuns.map(\.hostMicroseconds)), median(bridgeRuns.map(\.hostMicroseconds)),
                median(echoRuns.map(\.clientMicroseconds)), median(bridgeRuns.map(\.clientMicroseconds)))
        }
        if pipelinedOnly {
            try await runPipelined()
            let echoRate = median(echoRuns.map(\.rate))
            let bridgeRate = median(bridgeRuns.map(\.rate))
            print(
                String(
                    format:
                        "%d viewers pipelined, %d calls each, %d rounds: echo median %.0f msg/s, bridge median %.0f commands/s, ratio %.2fx",
                    pipelinedViewers, pipelinedPerViewer, pipelinedRounds, echoRate, bridgeRate, bridgeRate / echoRate))
            print(cpuLine())
            print("echo rounds: \(echoRuns.map { String(format: "%.0f", $0.rate) }.joined(separator: " "))")
            print("bridge rounds: \(bridgeRuns.map { String(format: "%.0f", $0.rate) }.joined(separator: " "))")
            return
        }
        let sequential = try await WebSocketLoad.alternating(
            baseline: (echoURL, false), measured: (bridgeURL("seq"), true), request: request, count: sequentialCount)
        let echoSequential = Latencies(sequential.baseline.steady)
        let bridgeSequential = Latencies(sequential.measured.steady)
        try await runPipelined()
        let echoRate = median(echoRuns.map(\.rate))
        let bridgeRate = median(bridgeRuns.map(\.rate))

        print("")
        print("| measurement | plain WebSocket echo | storybridge bridge | ratio | target |")
        print("|---|---|---|---|---|")
        print(
            String(
                format: "| 1 viewer sequential, p50 (%d calls) | %.3f ms | %.3f ms | %.2fx | |", sequentialCount,
                echoSequential.percentile(0.5), bridgeSequential.percentile(0.5),
                bridgeSequential.percentile(0.5) / echoSequential.percentile(0.5)))
        print(
            String(
                format: "| 1 viewer sequential, p99 | %.3f ms | %.3f ms | %.2fx | <= 2.00x |",
                echoSequential.percentile(0.99), bridgeSequential.percentile(0.99),
                bridgeSequential.percentile(0.99) / echoSequential.percentile(0.99)))
        print(
            String(
                format:
                    "| %d viewers pipelined (%d calls each, median of %d alternating rounds) | %.0f msg/s | %.0f commands/s | %.2fx | >= 0.80x |",
                pipelinedViewers, pipelinedPerViewer, pipelinedRounds, echoRate, bridgeRate, bridgeRate / echoRate))

        print("| \(cpuLine()) | | | | |")

        let browser = try await chromium(base: base)
        print(
            String(
                format: "| headless Chromium, 1,000 sequential calls via storyclm.js, p50 / p99 | | %.3f ms / %.3f ms | | |",
                browser.percentile(0.5), browser.percentile(0.99)))

        let memory = try await memoryPerViewer(pid: host.pid, url: bridgeURL)
        print(
            String(
                format: "| resident memory, host idle / with %d idle viewers | | %.1f MB / %.1f MB (%.1f KB per viewer) | | |",
                idleViewers, memory.before / 1024, memory.after / 1024, (memory.after - memory.before) / Double(idleViewers)))

        let staticRate = try await staticServing(url: base + "/p/1/index.html")
        print(String(format: "| static: 20 KB slide, 50 connections, %.0f s | | %.0f requests/s | | |", staticSeconds, staticRate))
    }

    func chromium(base: String) async throws -> Latencies {
        let browser = try await HeadlessChromium.launch()
        // Closed (its exit awaited) whether the body returns or throws.
        return try await browser.closingAfter { browser in
            let page = try await browser.newPage()
            try await page.navigate(to: base + "/p/1/index.html")
            try await page.waitFor("window.__storybridge && window.__storybridge.state.connected && window.StoryCLM")
            let result = try await page.evaluate(
                """
                (async function () {
                  var times = [];
                  for (var i = 0; i < 1100; i++) {
                    var t = performance.now();
                    await new Promise(function (resolve) { StoryCLM.Presentation.GetCurrentSlideName(resolve); });
                    if (i >= 100) { times.push(performance.now() - t); }
                  }
                  return times;
                })()
                """)
            await page.close()
            return Latencies(result.arrayValue?.compactMap(\.doubleValue) ?? [])
        }
    }

    func memoryPerViewer(pid: Int32, url: (String) -> String) async throws -> (before: Double, after: Double) {
        try await Task.sleep(for: .milliseconds(500))
        let before = residentKB(pid)
        var idle: [WebSocketTextConnection] = []
        for index in 0..<idleViewers {
            let connection = try await WebSocketTextConnection.connect(url: url("idle-\(index)"))
            _ = await connection.receive(timeout: .seconds(5))
            idle.append(connection)
        }
        try await Task.sleep(for: .seconds(1))
        let after = residentKB(pid)
        for connection in idle { await connection.close() }
        return (before, after)
    }

    func staticServing(url: String) async throws -> Double {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 50)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let deadline = ContinuousClock.now + .milliseconds(Int64(staticSeconds * 1000))
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    var done = 0
                    while ContinuousClock.now < deadline {
                        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        try await client.shutdown()
        return Double(counts) / staticSeconds
    }

    func residentKB(_ pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return .nan }
        return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    }

    /// A presentation whose start slide is 20 KB and loads storybridge's storyclm.js.
    static func makePresentation() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-deck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var html = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>bench</title>
            <script src="/__storybridge/storyclm.js"></script></head><body><h1>bench</h1>
            """
        while html.utf8.count < 20_000 { html += "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.</p>\n" }
        html += "</body></html>\n"
        try html.write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        return folder
    }

    static func raiseFileLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
