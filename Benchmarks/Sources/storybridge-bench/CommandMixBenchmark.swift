import Foundation

/// `storybridge-bench mix`: the commands content calls most, by what they touch (the viewer's
/// memory, a SQLite read, a SQLite write, and a mix of the three), each against the host's plain
/// WebSocket echo measured in the same run with the same client: 100 connections pipelining, in
/// rounds that alternate echo and bridge (medians compared), then one connection sending one
/// request at a time (p50, p99), echo and bridge alternating in blocks so both see the same
/// stretch of time.
struct CommandMixBenchmark {
    let quick: Bool
    /// Pipelined rounds of each path, instead of the default.
    var rounds: Int?
    /// Only the workloads whose name starts with this (for profiling one command).
    var only: String?

    var selected: [Workload] { Self.workloads.filter { only == nil || $0.name.hasPrefix(only!) } }

    var viewers: Int { 100 }
    var perViewer: Int { quick ? 50 : 200 }
    var pipelinedRounds: Int { rounds ?? (quick ? 3 : 5) }
    var sequentialCount: Int { quick ? 300 : 4_000 }

    /// What a command touches, and the target of its pipelined ratio against the echo.
    struct Workload {
        let name: String
        let touches: String
        let requests: [String]
        let pipelinedTarget: Double
    }

    static func request(_ command: String, _ data: String = "{}") -> String {
        #"{"Command":"\#(command)","Data":\#(data),"GUID":"GUID_bench"}"#
    }

    static let memory = request("getCurrentSlideName")
    static let readEvent = request("getCustomEventByKey", #"{"key":"bench"}"#)
    static let readSession = request("getCurrentSessions")
    static let writeEvent = request("setCustomEvent", #"{"key":"bench","value":"clicked"}"#)
    static let writeSession = request("setSessionComplete")

    static let workloads: [Workload] = [
        Workload(name: "getCurrentSlideName", touches: "memory", requests: [memory], pipelinedTarget: 0.9),
        Workload(name: "getCustomEventByKey", touches: "SQLite read", requests: [readEvent], pipelinedTarget: 0.7),
        Workload(name: "getCurrentSessions", touches: "SQLite read", requests: [readSession], pipelinedTarget: 0.7),
        Workload(name: "setCustomEvent", touches: "SQLite write", requests: [writeEvent], pipelinedTarget: 0.5),
        Workload(name: "setSessionComplete", touches: "SQLite write", requests: [writeSession], pipelinedTarget: 0.5),
        Workload(
            name: "mix: 5 memory, 3 reads, 2 writes in 10", touches: "all three",
            requests: [memory, readEvent, memory, writeEvent, memory, readSession, memory, readEvent, writeSession, memory],
            pipelinedTarget: 0.5),
    ]

    func run() async throws {
        RoundTripBenchmark.raiseFileLimit()
        let folder = try RoundTripBenchmark.makePresentation()
        let host = try await ServeChild.start(folder: folder, extraArguments: ["--max-connections", "5000"])
        defer {
            host.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        print("host: storybridge serve (pid \(host.pid)) on \(host.base); client: this process")
        print(
            "\(viewers) connections pipelining \(perViewer) requests each, \(pipelinedRounds) rounds alternating echo and bridge (medians); "
                + "then 1 connection to each, \(sequentialCount) requests one at a time in blocks of \(WebSocketLoad.alternationBlock) alternating echo and bridge "
                + "(percentiles without the first of each block, whose median is shown on its own)"
        )
        let setup = [Self.writeEvent]
        // Warm up: every viewer's session exists and holds the key the reads ask for.
        _ = try await WebSocketLoad.pipelined(
            urls: (0..<viewers).map { host.bridgeURL(viewer: "mix-\($0)") }, requests: [Self.memory], setup: setup,
            perViewer: 10, skipHello: true, hostPid: host.pid, answersMustSucceed: true)

        print("")
        print(
            "| command | touches | echo, msg/s | bridge, commands/s | ratio | target | host CPU per message, echo / bridge | client CPU per message, echo / bridge |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for workload in selected {
            var echo: [WebSocketLoad.PipelinedRun] = []
            var bridge: [WebSocketLoad.PipelinedRun] = []
            for _ in 0..<pipelinedRounds {
                echo.append(
                    try await WebSocketLoad.pipelined(
                        urls: Array(repeating: host.echoURL, count: viewers), requests: workload.requests, perViewer: perViewer,
                        skipHello: false, hostPid: host.pid))
                bridge.append(
                    try await WebSocketLoad.pipelined(
                        urls: (0..<viewers).map { host.bridgeURL(viewer: "mix-\($0)") }, requests: workload.requests, setup: setup,
                        perViewer: perViewer, skipHello: true, hostPid: host.pid, answersMustSucceed: true))
            }
            let ratio = median(bridge.map(\.rate)) / median(echo.map(\.rate))
            print(
                String(
                    format: "| %@ | %@ | %.0f | %.0f | %.2fx | >= %.1fx %@ | %.1f / %.1f µs | %.1f / %.1f µs |", workload.name,
                    workload.touches, median(echo.map(\.rate)), median(bridge.map(\.rate)), ratio, workload.pipelinedTarget,
                    ratio >= workload.pipelinedTarget ? "✔" : "✘", median(echo.map(\.hostMicroseconds)),
                    median(bridge.map(\.hostMicroseconds)), median(echo.map(\.clientMicroseconds)),
                    median(bridge.map(\.clientMicroseconds))))
        }

        print("")
        print(
            "| command, 1 connection sequential | echo p50 / p99 | bridge p50 / p99 | p99 ratio | target | first after the other path's block, echo / bridge (median) |"
        )
        print("|---|---|---|---|---|---|")
        for workload in selected where workload.requests.count == 1 {
            let samples = try await WebSocketLoad.alternating(
                baseline: (host.echoURL, false), measured: (host.bridgeURL(viewer: "mix-0"), true), request: workload.requests[0],
                count: sequentialCount)
            let echo = Latencies(samples.baseline.steady)
            let bridge = Latencies(samples.measured.steady)
            let ratio = bridge.percentile(0.99) / echo.percentile(0.99)
            print(
                String(
                    format: "| %@ | %.3f / %.3f ms | %.3f / %.3f ms | %.2fx | <= 2.0x %@ | %.3f / %.3f ms |", workload.name,
                    echo.percentile(0.5), echo.percentile(0.99), bridge.percentile(0.5), bridge.percentile(0.99), ratio,
                    ratio <= 2 ? "✔" : "✘", median(samples.baseline.afterPause),
                    median(samples.measured.afterPause)))
        }
    }
}
