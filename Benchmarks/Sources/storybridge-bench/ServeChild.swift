import Foundation
import StoryBridgeTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `storybridge serve` run as a child of the benchmark on a folder, with the plain WebSocket echo
/// (`--bench-echo`) and without the file watcher: its base URL and launch token, and a way to stop it.
/// The binary is the `storybridge` next to this benchmark's own binary (same build configuration).
final class ServeChild {
    let process: LaunchedProcess
    let port: Int
    let token: String
    private let dataFolder: URL

    var base: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { process.processIdentifier }

    private init(process: LaunchedProcess, port: Int, token: String, dataFolder: URL) {
        self.process = process
        self.port = port
        self.token = token
        self.dataFolder = dataFolder
    }

    /// The `storybridge` binary next to this one; exits with a hint when it was not built.
    static func binary() -> URL {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("storybridge")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("storybridge-bench: no storybridge binary at \(binary.path): build it first, with the same configuration")
            print("  (swift build -c release --product storybridge)")
            exit(2)
        }
        return binary
    }

    /// Every `--serve-argument ARG` of the benchmark's command line, in order: passed to each
    /// `storybridge serve` the benchmark starts (for instance `--connections-on-event-loop`).
    static let commonArguments: [String] = {
        let arguments = CommandLine.arguments
        return arguments.indices.dropLast().compactMap { arguments[$0] == "--serve-argument" ? arguments[$0 + 1] : nil }
    }()

    /// Starts `storybridge serve FOLDER --port 0 --bench-echo --no-watch` (and ``commonArguments``)
    /// with a fresh data folder and waits until it listens; `slide` is a root slide whose page
    /// carries the launch token.
    static func start(folder: URL, extraArguments: [String] = [], slide: String = "index.html") async throws -> ServeChild {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-data-\(UUID().uuidString)")
        let arguments =
            [
                "serve", folder.path, "--port", "0", "--bench-echo", "--log-level", "error", "--data-dir", data.path, "--no-watch",
            ] + extraArguments + commonArguments
        let child = try await ListeningChild.start(arguments, what: "storybridge serve", errorsToo: false)
        let (server, port) = (child.process, child.port)
        do {
            let token = try await fetchToken("http://127.0.0.1:\(port)/p/1/\(slide)")
            return ServeChild(process: server, port: port, token: token, dataFolder: data)
        } catch {
            server.terminate()
            await server.exit()
            throw error
        }
    }

    /// The bridge socket of a page load of `viewer` on the start slide.
    func bridgeURL(viewer: String) -> String {
        "ws://127.0.0.1:\(port)/__storybridge/ws?viewer=\(viewer)&presentation=1&slide=index.html&load=\(viewer)&token=\(token)"
    }

    /// Whether the benchmark's command line has `--echo-coalesced-flushes`: the echo then holds
    /// its flushes as a page socket does (the bridge's write path without the bridge).
    static let echoCoalescesFlushes = CommandLine.arguments.contains("--echo-coalesced-flushes")

    /// The host's plain WebSocket echo, the baseline of the command benchmarks.
    var echoURL: String {
        "ws://127.0.0.1:\(port)/__storybridge/echo?token=\(token)" + (Self.echoCoalescesFlushes ? "&flushes=coalesced" : "")
    }

    /// Ends the child and removes its data folder.
    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dataFolder)
    }

    /// The launch token, read from the client tag of a served slide.
    static func fetchToken(_ slideURL: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: slideURL)!)
        let html = String(decoding: data, as: UTF8.self)
        guard let range = html.range(of: "data-token=\""), let end = html[range.upperBound...].firstIndex(of: "\"") else {
            throw BenchmarkFailure("the slide at \(slideURL) carries no launch token")
        }
        return String(html[range.upperBound..<end])
    }
}
