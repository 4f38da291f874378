import Foundation
import StoryBridgeTesting
import Testing

/// The built `storybridge` executable, next to the test bundle.
func storybridgeExecutable() throws -> URL {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if folder.lastPathComponent.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
    let binary = folder.appendingPathComponent("storybridge")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "storybridge (run swift build first)"])
    }
    return binary
}

@Suite("Content server: command line")
struct ContentServerCommandLineTests {
    @Test("content-server --port 0 prints its address, answers tokens and content, and stops on SIGTERM")
    func startAnswerStop() async throws {
        let lab = try ContentLab()
        try lab.install(id: 4)
        let process = Process()
        process.executableURL = try storybridgeExecutable()
        process.arguments = [
            "content-server", "--port", "0", "--data-dir", lab.directory.root.path, "--client-id", ContentLab.serviceId,
            "--client-secret", ContentLab.serviceSecret,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("Ctrl-C"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /listening on (http:\/\/127\.0\.0\.1:\d+)\//) else {
            process.terminate()
            await waitForExit(process)
            Issue.record("content-server did not start: \(text)")
            return
        }
        let client = ContentClient(baseURL: String(match.1))
        let token = try await client.serviceToken()
        let clients = try await client.get("/v1/clients/", token: token)
        #expect(clients.status == 200)
        #expect(try clients.array().first?["presentations"] as? [[String: Any]] != nil)
        #expect(try await client.get(try await client.packageLink(4, token: token)).status == 200)
        process.terminate()
        #expect(await waitForExit(process), "content-server did not stop within a minute of SIGTERM")
        #expect(process.terminationStatus == 0)
    }

    @Test("--help lists the test options under their own title; missing credentials are refused")
    func helpAndValidation() throws {
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = try storybridgeExecutable()
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let (status, help) = try run(["content-server", "--help"])
        #expect(status == 0)
        #expect(help.contains("TEST OPTIONS"))
        for option in ["--test-drop-after-bytes", "--test-fail-first", "--test-link-lifetime", "--test-reject-refresh", "--config"] {
            #expect(help.contains(option), "\(option)")
        }
        let (refused, message) = try run(["content-server", "--port", "0"])
        #expect(refused != 0)
        #expect(message.contains("--config"))
    }
}
