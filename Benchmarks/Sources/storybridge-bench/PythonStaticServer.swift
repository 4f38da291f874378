import Foundation
import StoryBridgeTesting

/// The static baseline as a person sets one up: `python3 -m http.server` on 127.0.0.1 (port 0)
/// serving the deck's folder. Unlike ``StaticFileServer`` it sends no `Cache-Control`, only
/// `Last-Modified`, so the browser reuses the deck's scripts and style sheets by heuristic
/// freshness instead of revalidating them; and it speaks HTTP/1.0 (a connection per request).
final class PythonStaticServer {
    let process: LaunchedProcess
    let port: Int

    var base: String { "http://127.0.0.1:\(port)" }

    private init(process: LaunchedProcess, port: Int) {
        self.process = process
        self.port = port
    }

    static func start(folder: URL) async throws -> PythonStaticServer {
        let output = Pipe()
        let python = URL(fileURLWithPath: "/usr/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw BenchmarkFailure("no /usr/bin/python3 for the plain static server (apt-get install python3)")
        }
        let process = try await LaunchedProcess.launch(
            python, arguments: ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path],
            output: .pipe(output), error: .discard)
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        let text = await readUntil(") ...", from: output, limit: .seconds(30))
        guard let match = text.firstMatch(of: /port (\d+)/), let port = Int(match.1) else {
            process.terminate()
            throw BenchmarkFailure("python3 -m http.server did not print its port: \(text)")
        }
        return PythonStaticServer(process: process, port: port)
    }

    /// Ends the server (SIGTERM); its exit is collected by ``LaunchedProcess``.
    func stop() { process.terminate() }
}
