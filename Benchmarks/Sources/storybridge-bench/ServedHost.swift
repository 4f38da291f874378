import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `storybridge serve --bench-echo --no-watch` run as a child process on a presentation folder, the
/// way the benchmarks measure the host: from another process, over loopback.
final class ServedHost: Sendable {
    /// `http://127.0.0.1:PORT`.
    let base: String
    let port: Int
    /// The launch token the host puts into every slide it serves.
    let token: String
    let pid: Int32
    private let process: Process
    private let dataFolder: URL

    /// Starts the `storybridge` binary next to this benchmark's binary (same build configuration),
    /// and waits until it serves.
    static func start(presentation folder: URL, extraArguments: [String] = []) async throws -> ServedHost {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("storybridge")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("storybridge-bench: no storybridge binary at \(binary.path): build it first, with the same configuration")
            print("  (swift build -c release --product storybridge)")
            exit(2)
        }
        let server = Process()
        server.executableURL = binary
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-data-\(UUID().uuidString)")
        server.arguments =
            [
                "serve", folder.path, "--port", "0", "--bench-echo", "--log-level", "error", "--data-dir", data.path,
                "--max-connections", "5000", "--no-watch",
            ] + extraArguments
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        var text = ""
        while !text.contains("Ctrl-C") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                server.terminate()
                throw BenchmarkFailure("storybridge serve exited before it served: \(text)")
            }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /127\.0\.0\.1:(\d+)\//), let port = Int(match.1) else {
            server.terminate()
            throw BenchmarkFailure("storybridge serve did not print its address: \(text)")
        }
        let base = "http://127.0.0.1:\(port)"
        do {
            let token = try await fetchToken(base + "/p/1/index.html")
            return ServedHost(base: base, port: port, token: token, process: server, dataFolder: data)
        } catch {
            server.terminate()
            throw error
        }
    }

    private init(base: String, port: Int, token: String, process: Process, dataFolder: URL) {
        self.base = base
        self.port = port
        self.token = token
        self.process = process
        self.dataFolder = dataFolder
        pid = process.processIdentifier
    }

    /// The bridge socket of a page load of `viewer` on the start slide.
    func bridgeURL(viewer: String) -> String {
        "ws://127.0.0.1:\(port)/__storybridge/ws?viewer=\(viewer)&presentation=1&slide=index.html&load=\(viewer)&token=\(token)"
    }

    /// The host's plain WebSocket echo, the baseline of the command benchmarks.
    var echoURL: String { "ws://127.0.0.1:\(port)/__storybridge/echo?token=\(token)" }

    /// Stops the host and removes its data folder.
    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dataFolder)
    }

    /// The launch token from a slide's client script tag.
    static func fetchToken(_ slideURL: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: slideURL)!)
        let html = String(decoding: data, as: UTF8.self)
        guard let range = html.range(of: "data-token=\""), let end = html[range.upperBound...].firstIndex(of: "\"") else {
            throw BenchmarkFailure("the slide at \(slideURL) carries no launch token")
        }
        return String(html[range.upperBound..<end])
    }
}
