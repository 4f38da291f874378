import Foundation
import StoryBridgeTesting

/// Load that the command benchmarks put on a host's WebSockets: sequential round trips on one
/// connection, and many connections pipelining; with the CPU time spent by host and client.
enum WebSocketLoad {
    /// One connection, one request at a time; returns each round trip in ms.
    static func sequential(url: String, request: String, count: Int, skipHello: Bool) async throws -> [Double] {
        let connection = try await WebSocketTextConnection.connect(url: url)
        if skipHello { _ = await connection.receive(timeout: .seconds(5)) }
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for _ in 0..<count { latencies.append(try await roundTrip(request, on: connection, url: url)) }
        await connection.close()
        return latencies
    }

    /// One path's round trips in ms from ``alternating(baseline:measured:request:count:)``, split
    /// by where they fall in their blocks.
    ///
    /// The first round trip of a block runs with caches the other path's block has cooled, and
    /// every step of it is slower (a `setCustomEvent` after 400 echo round trips: 0.34 ms in the
    /// host from frame to answer, against 0.07 ms warm; after 100, about half that). Those first
    /// round trips are 1% of the sample, so in the percentiles they would set the p99 instead of
    /// the tail of steady use: they are kept apart, as what a page waits for after a pause.
    struct BlockSamples {
        /// Every round trip but the first of each block.
        var steady: [Double] = []
        /// The first round trip of each block.
        var afterPause: [Double] = []
    }

    /// Round trips of one path before the other path's turn (about 20 ms), short enough that a
    /// burst of load from elsewhere on the machine (tens of ms on this shared VM) falls on both
    /// paths.
    static let alternationBlock = 100

    /// Two paths measured in the same stretch of time: one connection to each, `request` sent one
    /// at a time, `count` round trips on each, in blocks of ``alternationBlock`` that alternate
    /// between them. A burst of load from elsewhere on the machine then falls on both samples alike
    /// instead of on whichever path happened to be running, and what one path leaves to do after
    /// its answer only meets the other at a block's edge.
    static func alternating(
        baseline: (url: String, skipHello: Bool), measured: (url: String, skipHello: Bool), request: String, count: Int
    ) async throws -> (baseline: BlockSamples, measured: BlockSamples) {
        let first = try await WebSocketTextConnection.connect(url: baseline.url)
        if baseline.skipHello { _ = await first.receive(timeout: .seconds(5)) }
        let second = try await WebSocketTextConnection.connect(url: measured.url)
        if measured.skipHello { _ = await second.receive(timeout: .seconds(5)) }
        var samples = (baseline: BlockSamples(), measured: BlockSamples())
        var done = 0
        while done < count {
            let size = min(alternationBlock, count - done)
            try await block(of: size, request, on: first, url: baseline.url, into: &samples.baseline)
            try await block(of: size, request, on: second, url: measured.url, into: &samples.measured)
            done += size
        }
        await first.close()
        await second.close()
        return samples
    }

    /// `size` round trips on `connection`, the first kept apart.
    private static func block(
        of size: Int, _ request: String, on connection: WebSocketTextConnection, url: String, into samples: inout BlockSamples
    ) async throws {
        for index in 0..<size {
            let elapsed = try await roundTrip(request, on: connection, url: url)
            if index == 0 { samples.afterPause.append(elapsed) } else { samples.steady.append(elapsed) }
        }
    }

    /// Sends `request` and waits for one message back; the time it took in ms.
    private static func roundTrip(_ request: String, on connection: WebSocketTextConnection, url: String) async throws -> Double {
        let start = ContinuousClock.now
        connection.send(request)
        guard await connection.receive(timeout: .seconds(10)) != nil else {
            throw BenchmarkFailure("no answer within the time limit from \(url)")
        }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    }

    /// One pipelined run: answers per second, and the CPU time the host and this client spent per
    /// message while it ran (where the time goes: both share the machine's cores).
    struct PipelinedRun {
        let rate: Double
        let hostMicroseconds: Double
        let clientMicroseconds: Double
    }

    /// Many connections, each sending its requests without waiting.
    static func pipelined(urls: [String], request: String, perViewer: Int, skipHello: Bool, hostPid: Int32) async throws -> PipelinedRun {
        try await pipelined(urls: urls, requests: [request], perViewer: perViewer, skipHello: skipHello, hostPid: hostPid)
    }

    /// Many connections, each sending `perViewer` requests (cycling through `requests`) without
    /// waiting; each connection first sends `setup` one at a time, which is not timed.
    static func pipelined(
        urls: [String], requests: [String], setup: [String] = [], perViewer: Int, skipHello: Bool, hostPid: Int32,
        answersMustSucceed: Bool = false
    ) async throws -> PipelinedRun {
        var connections: [WebSocketTextConnection] = []
        for url in urls {
            let connection = try await WebSocketTextConnection.connect(url: url)
            if skipHello { _ = await connection.receive(timeout: .seconds(5)) }
            for request in setup {
                connection.send(request)
                guard await connection.receive(timeout: .seconds(10)) != nil else {
                    throw BenchmarkFailure("no answer to a setup request from \(url)")
                }
            }
            connections.append(connection)
        }
        let clock = ContinuousClock()
        let hostBefore = cpuSeconds(pid: hostPid)
        let clientBefore = ownCPUSeconds()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask {
                    for index in 0..<perViewer { connection.send(requests[index % requests.count]) }
                    for _ in 0..<perViewer {
                        guard let answer = await connection.receive(timeout: .seconds(30)) else {
                            throw BenchmarkFailure("a pipelined connection got no answer within 30 s")
                        }
                        if answersMustSucceed && !Self.reportsSuccess(answer) {
                            throw BenchmarkFailure("the host answered a benchmark request with a failure: \(answer)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let hostCPU = cpuSeconds(pid: hostPid) - hostBefore
        let clientCPU = ownCPUSeconds() - clientBefore
        for connection in connections { await connection.close() }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let messages = Double(urls.count * perViewer)
        return PipelinedRun(
            rate: messages / seconds, hostMicroseconds: hostCPU / messages * 1e6, clientMicroseconds: clientCPU / messages * 1e6)
    }

    /// The bytes every successful answer holds.
    static let success = Array(#""Status":"Success""#.utf8)

    /// Whether `answer` holds `"Status":"Success"`, searched as UTF-8 bytes: the check runs in
    /// this process, which shares the cores with the host, on bridge answers only, so it must cost
    /// next to nothing. `String.contains` took 1 to 4 µs of the client's CPU per answer (Unicode
    /// search, more for longer answers), which showed up in the bridge's rate.
    static func reportsSuccess(_ answer: String) -> Bool {
        var text = answer
        return text.withUTF8 { bytes in
            let first = success[0]
            var start = 0
            while start + success.count <= bytes.count {
                if bytes[start] == first,
                    (1..<success.count).allSatisfy({ bytes[start + $0] == success[$0] })
                {
                    return true
                }
                start += 1
            }
            return false
        }
    }

    /// User plus system CPU seconds of process `pid` (from /proc; 10 ms resolution).
    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// User plus system CPU seconds of this process.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
