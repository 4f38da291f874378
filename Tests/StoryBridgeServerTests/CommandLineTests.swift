import Foundation
import Testing

/// The built `storybridge` executable, next to the test bundle.
func storybridgeExecutable() throws -> URL {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if folder.lastPathComponent.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
    for candidate in [folder, repositoryRoot.appendingPathComponent(".build/debug")] {
        let binary = candidate.appendingPathComponent("storybridge")
        if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "storybridge (run swift build first)"])
}

/// Runs the CLI to completion and returns its exit status and output.
func runCLI(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = try storybridgeExecutable()
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

@Suite("Command line")
struct CommandLineTests {
    @Test("serve --port 0 prints the URL of a free port, serves there, and stops cleanly on Ctrl-C")
    func serveAndInterrupt() async throws {
        let process = Process()
        process.executableURL = try storybridgeExecutable()
        process.arguments = ["serve", demoFolder.path, "--port", "0", "--log-level", "warning"]
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
        let match = try #require(text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\//))
        let port = try #require(Int(match.1))
        #expect(port > 0 && port != 8080)
        let (status, _, body) = try await httpGet("http://127.0.0.1:\(port)/p/1/index.html")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("/__storybridge/client.js"))
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test("serve of a folder without index.html fails with a message and a non-zero status")
    func serveBadFolder() throws {
        let folder = try makePresentationFolder(["readme.txt": "not a presentation"])
        let result = try runCLI(["serve", folder.path, "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("has no index.html"))
    }

    @Test("a config file with a wrong type is refused naming the key")
    func badConfig() throws {
        let folder = try makePresentationFolder(["config.json": #"{"identity": {"user": {"id": 5}}}"#])
        let result = try runCLI(["serve", demoFolder.path, "--config", folder.appendingPathComponent("config.json").path])
        #expect(result.status != 0)
        #expect(result.errors.contains("identity.user.id"))
    }

    @Test("--help explains the commands")
    func help() throws {
        let result = try runCLI(["serve", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("--port"))
        #expect(result.output.contains("0 picks a free port"))
    }

    @Test("the demo bundles a byte-identical copy of the project's storyclm.js")
    func demoCarriesOwnLibrary() throws {
        let own = try Data(contentsOf: repositoryRoot.appendingPathComponent("js/storyclm.js"))
        let bundled = try Data(contentsOf: demoFolder.appendingPathComponent("js/storyclm.js"))
        #expect(own == bundled)
    }
}
