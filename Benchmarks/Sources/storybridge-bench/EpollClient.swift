import Foundation

/// `storybridge-epoll-client`, the command benchmark's second client: plain C on Linux epoll
/// (Benchmarks/Sources/storybridge-epoll-client), outside the Swift/NIO stack, so that a ratio to
/// the echo does not depend on what the Swift client costs. It runs as a child process for one
/// measurement at a time while this process waits, and prints one `result key=value …` line per
/// endpoint it measured.
struct EpollClient {
    let binary: URL

    /// The client built next to this benchmark (same build configuration); exits with a hint
    /// when it was not built.
    static func locate() -> EpollClient {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("storybridge-epoll-client")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("storybridge-bench: no storybridge-epoll-client at \(binary.path): build it first, with the same configuration")
            print("  (swift build -c release --product storybridge-epoll-client), or run mix with --client swift")
            exit(2)
        }
        return EpollClient(binary: binary)
    }

    /// A WebSocket endpoint of the host: the plain echo, or a bridge socket (which greets with
    /// `hello` and must answer every request with success).
    struct Endpoint {
        let url: String
        let isBridge: Bool

        var arguments: [String] { [isBridge ? "--bridge-url" : "--echo-url", url] }
    }

    /// One pipelined run: the same figures as the Swift client's, and the latency of the answers.
    struct PipelinedResult {
        let run: WebSocketLoad.PipelinedRun
        /// Time from a request's write to its answer, in ms.
        let p50: Double
        let p99: Double
    }

    /// One endpoint's round trips from an alternating run, in ms.
    struct SequentialResult {
        /// Percentiles of every round trip but the first of each block.
        let p50: Double
        let p99: Double
        /// The median of each block's first round trip.
        let afterPause: Double
    }

    /// `connections` connections to `endpoint` (`{i}` in its URL becomes the connection's number),
    /// each sending `perConnection` requests at once, cycling through `templates` (request frames
    /// with `{GUID}` where the client puts a GUID of its own), after `setup` one at a time (untimed).
    func pipelined(
        endpoint: Endpoint, connections: Int, templates: [String], setup: [String] = [], perConnection: Int, hostPid: Int32
    ) async throws -> PipelinedResult {
        var arguments = ["pipelined"] + endpoint.arguments
        arguments += ["--connections", "\(connections)", "--count", "\(perConnection)", "--host-pid", "\(hostPid)"]
        arguments += templates.flatMap { ["--request", $0] } + setup.flatMap { ["--setup", $0] }
        let fields = try await results(of: arguments, expecting: 1)[0]
        return PipelinedResult(
            run: WebSocketLoad.PipelinedRun(
                rate: try fields.number("rate"), hostMicroseconds: try fields.number("host_cpu_us"),
                clientMicroseconds: try fields.number("client_cpu_us")),
            p50: try fields.number("p50_ms"), p99: try fields.number("p99_ms"))
    }

    /// One connection to each endpoint, `count` round trips on each, one request at a time, in
    /// blocks of ``WebSocketLoad/alternationBlock`` that alternate (as
    /// ``WebSocketLoad/alternating(baseline:measured:request:count:)`` does with the Swift client).
    func alternating(
        baseline: Endpoint, measured: Endpoint, template: String, count: Int
    ) async throws -> (baseline: SequentialResult, measured: SequentialResult) {
        let arguments =
            ["alternating"] + baseline.arguments + measured.arguments
            + ["--count", "\(count)", "--block", "\(WebSocketLoad.alternationBlock)", "--request", template]
        let lines = try await results(of: arguments, expecting: 2)
        let summaries = try lines.map { fields in
            SequentialResult(
                p50: try fields.number("steady_p50_ms"), p99: try fields.number("steady_p99_ms"),
                afterPause: try fields.number("after_pause_median_ms"))
        }
        return (summaries[0], summaries[1])
    }

    /// The `key=value` fields of a result line.
    struct Fields {
        let line: String
        let values: [String: String]

        init(_ line: Substring) {
            self.line = String(line)
            values = Dictionary(
                line.split(separator: " ").compactMap { field in
                    field.firstIndex(of: "=").map { (String(field[..<$0]), String(field[field.index(after: $0)...])) }
                }, uniquingKeysWith: { _, last in last })
        }

        /// The number in field `key` (`nan` allowed: the host's CPU time when /proc could not be read).
        func number(_ key: String) throws -> Double {
            guard let text = values[key], let value = Double(text) else {
                throw BenchmarkFailure("storybridge-epoll-client printed no number for \(key): \(line)")
            }
            return value
        }
    }

    /// Runs the client with `arguments` and returns its result lines; throws with its output when
    /// it fails or prints another number of them.
    private func results(of arguments: [String], expecting count: Int) async throws -> [Fields] {
        let run = try await ChildRun.run(binary.path, arguments)
        let lines = run.output.split(separator: "\n").filter { $0.hasPrefix("result ") }.map(Fields.init)
        guard run.status == 0, lines.count == count else {
            throw BenchmarkFailure("storybridge-epoll-client \(arguments.first ?? "") failed (status \(run.status)): \(run.output)")
        }
        return lines
    }
}
