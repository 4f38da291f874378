import Foundation

/// The command mix as ``EpollClient`` measured it: its own tables after the Swift client's (whose
/// lines stay as they were, for the scripts that read them), and both clients' pipelined ratios
/// side by side.
extension CommandMixBenchmark {
    /// One workload's pipelined rounds with the C client.
    typealias EpollRounds = (echo: [EpollClient.PipelinedResult], bridge: [EpollClient.PipelinedResult])

    static func ratio(_ rounds: EpollRounds) -> Double {
        median(rounds.bridge.map(\.run.rate)) / median(rounds.echo.map(\.run.rate))
    }

    /// The pipelined table, as the Swift client's with the answers' latency added.
    func printEpollPipelined(_ rounds: [EpollRounds]) {
        print("")
        print(
            "| command, C epoll client | touches | echo, msg/s | bridge, commands/s | ratio | target | host CPU per message, echo / bridge "
                + "| client CPU per message, echo / bridge | answer latency p50 / p99, echo; bridge |")
        print("|---|---|---|---|---|---|---|---|---|")
        for (workload, runs) in zip(selected, rounds) {
            let ratio = Self.ratio(runs)
            print(
                String(
                    format:
                        "| %@ | %@ | %.0f | %.0f | %.2fx | >= %.1fx %@ | %.1f / %.1f µs | %.1f / %.1f µs | %.2f / %.2f ms; %.2f / %.2f ms |",
                    workload.name, workload.touches, median(runs.echo.map(\.run.rate)), median(runs.bridge.map(\.run.rate)), ratio,
                    workload.pipelinedTarget, ratio >= workload.pipelinedTarget ? "✔" : "✘", median(runs.echo.map(\.run.hostMicroseconds)),
                    median(runs.bridge.map(\.run.hostMicroseconds)), median(runs.echo.map(\.run.clientMicroseconds)),
                    median(runs.bridge.map(\.run.clientMicroseconds)), median(runs.echo.map(\.p50)), median(runs.echo.map(\.p99)),
                    median(runs.bridge.map(\.p50)), median(runs.bridge.map(\.p99))))
        }
    }

    /// The sequential table, measured as the Swift client measures it (one connection to each,
    /// blocks alternating, the first of each block apart).
    func printEpollSequential(_ epoll: EpollClient, echo: EpollClient.Endpoint, bridge: EpollClient.Endpoint) async throws {
        print("")
        print(
            "| command, C epoll client, 1 connection sequential | echo p50 / p99 | bridge p50 / p99 | p99 ratio | target "
                + "| first after the other path's block, echo / bridge (median) |")
        print("|---|---|---|---|---|---|")
        for workload in selected where workload.templates.count == 1 {
            let result = try await epoll.alternating(
                baseline: echo, measured: bridge, template: workload.templates[0], count: sequentialCount)
            let ratio = result.measured.p99 / result.baseline.p99
            print(
                String(
                    format: "| %@ | %.3f / %.3f ms | %.3f / %.3f ms | %.2fx | <= 2.0x %@ | %.3f / %.3f ms |", workload.name,
                    result.baseline.p50, result.baseline.p99, result.measured.p50, result.measured.p99, ratio, ratio <= 2 ? "✔" : "✘",
                    result.baseline.afterPause, result.measured.afterPause))
        }
    }

    /// Each workload's pipelined ratio to the echo with each client, measured in the same rounds.
    func printRatiosByClient(swift: [Double], epoll: [EpollRounds]) {
        print("")
        print("| command, pipelined ratio to the echo by client | touches | Swift/NIO client | C epoll client | target |")
        print("|---|---|---|---|---|")
        for (workload, (swiftRatio, rounds)) in zip(selected, zip(swift, epoll)) {
            print(
                String(
                    format: "| %@ | %@ | %.2fx | %.2fx | >= %.1fx |", workload.name, workload.touches, swiftRatio, Self.ratio(rounds),
                    workload.pipelinedTarget))
        }
    }
}
