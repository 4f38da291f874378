import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Analytics commands")
struct AnalyticsCommandTests {
    @Test("sessions list, show and export (JSON and CSV) read the recorded sessions")
    func sessions() async throws {
        let (store, directory) = try await savedSessions(2, slides: 2)
        let data = directory.root.path
        let list = try await runCLI(["sessions", "list", "--data-dir", data])
        #expect(list.status == 0)
        let sessions = try await store.sessions()
        for session in sessions { #expect(list.output.contains(session.id)) }

        let show = try await runCLI(["sessions", "show", sessions[0].id, "--data-dir", data])
        let shown = try JSONValue.parse(show.output)
        #expect(shown["state"] == 1)
        #expect(shown["slides"]?.arrayValue?.count == 2)
        #expect(shown["customEvents"]?.arrayValue?.first?["key"] == "k")

        let json = try JSONValue.parse(try await runCLI(["sessions", "export", "--format", "json", "--data-dir", data]).output)
        #expect(json.arrayValue?.count == 2)
        let csv = try await runCLI(["sessions", "export", "--format", "csv", "--data-dir", data]).output
            .split(separator: "\n")
        #expect(csv.first == "sessionId,presentationId,state,complete,slideViewId,slideName,duration,navigation,cause,created")
        #expect(csv.count == 1 + 4)

        let missing = try await runCLI(["sessions", "show", "nope", "--data-dir", data])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("no session 'nope'"))
    }

    @Test("collector and upload --once from the command line; upload --status reports the queue")
    func collectorAndUpload() async throws {
        let (_, directory) = try await savedSessions(3, slides: 1)
        let data = directory.root.path
        let status = try JSONValue.parse(try await runCLI(["upload", "--status", "--json", "--data-dir", data]).output)
        #expect(status["queued"] == 9)
        #expect(status["sent"] == 0)

        let collectorData = FileManager.default.temporaryDirectory.appendingPathComponent("sb-col-\(UUID().uuidString)")
        let output = Pipe()
        let collector = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: [
                "collector", "--port", "0", "--key", "k1", "--secret", "s1", "--data-dir", collectorData.path,
            ], output: .pipe(output))
        let text = await readUntil("Ctrl-C", from: output)
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//)?.1)
        let upload = try await runCLI([
            "upload", "--once", "--data-dir", data, "--upload-endpoint", "http://127.0.0.1:\(port)", "--upload-key", "k1",
            "--upload-secret", "s1",
        ])
        #expect(upload.status == 0)
        #expect(upload.output.contains("sent 9"))
        let after = try JSONValue.parse(try await runCLI(["upload", "--status", "--json", "--data-dir", data]).output)
        #expect(after["sent"] == 9)
        #expect(after["queued"] == 0)
        collector.interrupt()
        #expect(await waitForExit(collector), "the collector did not stop within a minute of SIGINT")
        let received = try JSONValue.parse(try await runCLI(["collector", "list", "--json", "--data-dir", collectorData.path]).output)
        #expect(received.arrayValue?.count == 9)
        #expect(received.arrayValue?.first?["headers"]?["s-m-eid"] != nil)

        let misconfigured = try await runCLI(["upload", "--once", "--data-dir", data, "--upload-endpoint", "ftp://x"])
        #expect(misconfigured.status != 0)
        #expect(misconfigured.errors.contains("not an http(s) URL"))
    }
}
