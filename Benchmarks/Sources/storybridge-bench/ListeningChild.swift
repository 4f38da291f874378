import Foundation
import StoryBridgeTesting

/// A `storybridge` command run as a child of the benchmark until it listens: the binary next to
/// the benchmark's own (``ServeChild/binary()``), started with `arguments`, read until it prints
/// "Ctrl-C" (the last line of a server's start-up) and its `127.0.0.1` address. Shared by
/// ``ServeChild`` and ``FleetHubChild``.
struct ListeningChild {
    let process: LaunchedProcess
    let port: Int
    /// The child's output (and its errors, when asked), to be drained by the caller.
    let output: Pipe
    /// What it printed up to "Ctrl-C".
    let startText: String

    /// Starts the child and waits (up to a minute) until it listens; `what` names it in errors.
    /// `errorsToo`: its standard error goes to ``output`` as well (else to this process's). A
    /// child that does not start in time, or prints no address, is ended and the error thrown.
    static func start(_ arguments: [String], what: String, errorsToo: Bool) async throws -> ListeningChild {
        let pipe = Pipe()
        let process = try await LaunchedProcess.launch(
            ServeChild.binary(), arguments: arguments, output: .pipe(pipe), error: errorsToo ? .pipe(pipe) : .inherit)
        let text = await readUntil("Ctrl-C", from: pipe, limit: .seconds(60))
        guard text.contains("Ctrl-C") else {
            process.terminate()
            _ = await process.exit()
            throw BenchmarkFailure("\(what) did not start within a minute: \(text)")
        }
        guard let match = text.firstMatch(of: /127\.0\.0\.1:(\d+)\//), let port = Int(match.1) else {
            process.terminate()
            _ = await process.exit()
            throw BenchmarkFailure("\(what) did not print its address: \(text)")
        }
        return ListeningChild(process: process, port: port, output: pipe, startText: text)
    }
}
