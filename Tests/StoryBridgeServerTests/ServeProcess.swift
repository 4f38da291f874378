import Foundation
import StoryBridgeTesting
import Testing

/// A `storybridge serve` child process, started and read until it says it is ready.
struct ServeProcess {
    let process: LaunchedProcess
    /// What it printed on standard output up to "Press Ctrl-C".
    let output: String
    /// The address it serves, e.g. `http://127.0.0.1:40211`.
    let baseURL: String
    /// The launch token, read from the inspector address it printed.
    let token: String
    /// Where its standard error goes.
    let errorsFile: URL
    /// The data folder made for it when its arguments named none, removed by ``interrupt()``.
    let ownDataFolder: URL?

    /// Runs `storybridge serve` with `arguments` (add `--port 0`) and waits for its start-up lines,
    /// read on a thread of their own (``readUntil(_:from:limit:)``), so no cooperative thread waits
    /// on them. Arguments that name no `--data-dir` get a fresh folder of its own
    /// (``withOwnDataFolder(_:)``).
    static func start(_ arguments: [String]) async throws -> ServeProcess {
        let (arguments, ownDataFolder) = withOwnDataFolder(arguments)
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("sb-serve-\(UUID().uuidString).stderr")
        _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        let output = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(), arguments: ["serve"] + arguments, output: .pipe(output),
            error: .handle(try FileHandle(forWritingTo: errorsFile)))
        let text = await readUntil("Ctrl-C", from: output, limit: .seconds(30))
        guard let match = text.firstMatch(of: /Inspector: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/inspector\?token=([0-9a-f]+)/) else {
            process.terminate()
            await waitForExit(process)
            if let ownDataFolder { try? FileManager.default.removeItem(at: ownDataFolder) }
            let errors = (try? String(contentsOf: errorsFile, encoding: .utf8)) ?? ""
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(text) \(errors)"])
        }
        return ServeProcess(
            process: process, output: text, baseURL: String(match.1), token: String(match.2), errorsFile: errorsFile,
            ownDataFolder: ownDataFolder)
    }

    /// The port it listens on.
    var port: Int { Int(baseURL.split(separator: ":").last ?? "") ?? 0 }

    /// Its standard error so far.
    var errors: String { (try? String(contentsOf: errorsFile, encoding: .utf8)) ?? "" }

    /// Connects a scripted viewer to `slide` of presentation 1.
    func connectViewer(slide: String = "index.html", viewerId: String = UUID().uuidString) async throws -> ViewerClient {
        try await ViewerClient.connect(
            baseURL: baseURL, token: token, presentationId: 1, slide: slide, viewerId: viewerId, pageLoad: UUID().uuidString,
            viaDeepLink: false)
    }

    /// Sends Ctrl-C, waits for the exit and returns the exit status. The wait holds no thread:
    /// blocking a test task would take a cooperative thread that other tests' in-process clients
    /// need (there are two on a 2-core machine).
    @discardableResult
    func interrupt() async -> Int32 {
        process.interrupt()
        let process = self.process
        await waitForExit(process)
        if let ownDataFolder { try? FileManager.default.removeItem(at: ownDataFolder) }
        return process.terminationStatus
    }
}
