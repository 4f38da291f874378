import Foundation

/// `storybridge-bench mix`: the commands content calls most, by what they touch (the viewer's
/// memory, a SQLite read, a SQLite write, and a mix of the three), each against the host's plain
/// WebSocket echo measured in the same run with the same client: 100 connections pipelining, in
/// rounds that alternate echo and bridge (medians compared), then one connection sending one
/// request at a time (p50, p99), echo and bridge alternating in blocks so both see the same
/// stretch of time.
///
/// Two clients measure the same host in the same run: this process (SwiftNIO's WebSocket client)
/// and ``EpollClient`` (C on epoll, outside that stack); a round runs echo and bridge with each.
/// The Swift client's tables come first, as they always did; the C client's follow, then both
/// clients' pipelined ratios side by side.
struct CommandMixBenchmark {
    let quick: Bool
    /// Which clients measure.
    var clients: Clients = .both
    /// Pipelined rounds of each path, instead of the default.
    var rounds: Int?
    /// Only the workloads whose name starts with this (for profiling one command).
    var only: String?

    var selected: [Workload] { Self.workloads.filter { only == nil || $0.name.hasPrefix(only!) } }

    var viewers: Int { 100 }
    var perViewer: Int { quick ? 50 : 200 }
    var pipelinedRounds: Int { rounds ?? (quick ? 3 : 5) }
    var sequentialCount: Int { quick ? 300 : 4_000 }

    /// The clients `--client` chooses from.
    enum Clients: String, CaseIterable {
        case swift, c, both

        var swift: Bool { self != .c }
        var c: Bool { self != .swift }
    }

    /// What a command touches, and the target of its pipelined ratio against the echo.
    struct Workload {
        let name: String
        let touches: String
        /// Request frames with `{GUID}` where the GUID goes.
        let templates: [String]
        let pipelinedTarget: Double

        /// The frames the Swift client sends: one GUID for all, as it does not match answers.
        var requests: [String] { templates.map(CommandMixBenchmark.swiftFrame) }
    }

    static func request(_ command: String, _ data: String = "{}") -> String {
        #"{"Command":"\#(command)","Data":\#(data),"GUID":"{GUID}"}"#
    }

    /// `template` with the GUID the Swift client sends.
    static func swiftFrame(_ template: String) -> String { template.replacingOccurrences(of: "{GUID}", with: "GUID_bench") }

    static let memory = request("getCurrentSlideName")
    static let readEvent = request("getCustomEventByKey", #"{"key":"bench"}"#)
    static let readSession = request("getCurrentSessions")
    static let writeEvent = request("setCustomEvent", #"{"key":"bench","value":"clicked"}"#)
    static let writeSession = request("setSessionComplete")

    static let workloads: [Workload] = [
        Workload(name: "getCurrentSlideName", touches: "memory", templates: [memory], pipelinedTarget: 0.9),
        Workload(name: "getCustomEventByKey", touches: "SQLite read", templates: [readEvent], pipelinedTarget: 0.7),
        Workload(name: "getCurrentSessions", touches: "SQLite read", templates: [readSession], pipelinedTarget: 0.7),
        Workload(name: "setCustomEvent", touches: "SQLite write", templates: [writeEvent], pipelinedTarget: 0.5),
        Workload(name: "setSessionComplete", touches: "SQLite write", templates: [writeSession], pipelinedTarget: 0.5),
        Workload(
            name: "mix: 5 memory, 3 reads, 2 writes in 10", touches: "all three",
            templates: [memory, readEvent, memory, writeEvent, memory, readSession, memory, readEvent, writeSession, memory],
            pipelinedTarget: 0.5),
    ]

    func run() async throws {
        RoundTripBenchmark.raiseFileLimit()
        let epoll = clients.c ? EpollClient.locate() : nil
        let folder = try RoundTripBenchmark.makePresentation()
        let host = try await ServeChild.start(folder: folder, extraArguments: ["--max-connections", "5000"])
        defer {
            host.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        let clientNames = [
            clients.swift ? "this process (SwiftNIO WebSocket client)" : nil, clients.c ? "storybridge-epoll-client (C, epoll)" : nil,
        ]
        print(
            "host: storybridge serve (pid \(host.pid)) on \(host.base); client: \(clientNames.compactMap { $0 }.joined(separator: " and "))"
        )
        print(
            "\(viewers) connections pipelining \(perViewer) requests each, \(pipelinedRounds) rounds alternating echo and bridge (medians); "
                + "then 1 connection to each, \(sequentialCount) requests one at a time in blocks of \(WebSocketLoad.alternationBlock) alternating echo and bridge "
                + "(percentiles without the first of each block, whose median is shown on its own)"
        )
        let setup = [Self.writeEvent]
        let bridgeURLs = (0..<viewers).map { host.bridgeURL(viewer: "mix-\($0)") }
        let echo = EpollClient.Endpoint(url: host.echoURL, isBridge: false)
        let bridge = EpollClient.Endpoint(url: host.bridgeURL(viewer: "mix-{i}"), isBridge: true)
        // Warm up: every viewer's session exists and holds the key the reads ask for.
        if clients.swift {
            _ = try await WebSocketLoad.pipelined(
                urls: bridgeURLs, requests: [Self.swiftFrame(Self.memory)], setup: setup.map(Self.swiftFrame), perViewer: 10,
                skipHello: true,
                hostPid: host.pid, answersMustSucceed: true)
        } else if let epoll {
            _ = try await epoll.pipelined(
                endpoint: bridge, connections: viewers, templates: [Self.memory], setup: setup, perConnection: 10, hostPid: host.pid)
        }

        if clients.swift {
            print("")
            print(
                "| command | touches | echo, msg/s | bridge, commands/s | ratio | target | host CPU per message, echo / bridge | client CPU per message, echo / bridge |"
            )
            print("|---|---|---|---|---|---|---|---|")
        }
        var swiftRatios: [Double] = []
        var epollRounds: [EpollRounds] = []
        for workload in selected {
            var echoRuns: [WebSocketLoad.PipelinedRun] = []
            var bridgeRuns: [WebSocketLoad.PipelinedRun] = []
            var epollRuns = EpollRounds(echo: [], bridge: [])
            for _ in 0..<pipelinedRounds {
                if clients.swift {
                    echoRuns.append(
                        try await WebSocketLoad.pipelined(
                            urls: Array(repeating: host.echoURL, count: viewers), requests: workload.requests, perViewer: perViewer,
                            skipHello: false, hostPid: host.pid))
                    bridgeRuns.append(
                        try await WebSocketLoad.pipelined(
                            urls: bridgeURLs, requests: workload.requests, setup: setup.map(Self.swiftFrame), perViewer: perViewer,
                            skipHello: true, hostPid: host.pid, answersMustSucceed: true))
                }
                if let epoll {
                    epollRuns.echo.append(
                        try await epoll.pipelined(
                            endpoint: echo, connections: viewers, templates: workload.templates, perConnection: perViewer, hostPid: host.pid
                        ))
                    epollRuns.bridge.append(
                        try await epoll.pipelined(
                            endpoint: bridge, connections: viewers, templates: workload.templates, setup: setup, perConnection: perViewer,
                            hostPid: host.pid))
                }
            }
            epollRounds.append(epollRuns)
            guard clients.swift else { continue }
            let ratio = median(bridgeRuns.map(\.rate)) / median(echoRuns.map(\.rate))
            swiftRatios.append(ratio)
            print(
                String(
                    format: "| %@ | %@ | %.0f | %.0f | %.2fx | >= %.1fx %@ | %.1f / %.1f µs | %.1f / %.1f µs |", workload.name,
                    workload.touches, median(echoRuns.map(\.rate)), median(bridgeRuns.map(\.rate)), ratio, workload.pipelinedTarget,
                    ratio >= workload.pipelinedTarget ? "✔" : "✘", median(echoRuns.map(\.hostMicroseconds)),
                    median(bridgeRuns.map(\.hostMicroseconds)), median(echoRuns.map(\.clientMicroseconds)),
                    median(bridgeRuns.map(\.clientMicroseconds))))
        }

        if clients.swift {
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

        if let epoll {
            printEpollPipelined(epollRounds)
            try await printEpollSequential(
                epoll, echo: echo, bridge: EpollClient.Endpoint(url: host.bridgeURL(viewer: "mix-0"), isBridge: true))
            if clients.swift { printRatiosByClient(swift: swiftRatios, epoll: epollRounds) }
        }
    }
}
