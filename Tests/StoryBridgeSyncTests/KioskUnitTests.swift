import Foundation
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting
import Testing

@Suite("scripts/storybridge-kiosk.service", .serialized)
struct KioskUnitTests {
    /// The unit file's ExecStart arguments (continuation lines joined), without the program.
    static func execStartArguments() throws -> [String] {
        let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/storybridge-kiosk.service")
        let text = try String(contentsOf: unit, encoding: .utf8).replacingOccurrences(of: "\\\n", with: " ")
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return Array(line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init).dropFirst())
    }

    @Test("the unit restarts on failure, logs to the journal, and its ExecStart runs serve with sync as written")
    func unitRunsServe() async throws {
        let unit = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/storybridge-kiosk.service"), encoding: .utf8)
        #expect(unit.contains("Restart=on-failure"))
        #expect(unit.contains("StandardError=journal"))
        var arguments = try Self.execStartArguments()
        #expect(arguments.first == "serve")
        #expect(arguments.contains("--sync-every"))
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 3) }
        // The unit's data folder and port become the lab's; spawn adds --data-dir again, so it goes here.
        let port = try #require(arguments.firstIndex(of: "--port"))
        arguments[port + 1] = "0"
        let dataDir = try #require(arguments.firstIndex(of: "--data-dir"))
        arguments.removeSubrange(dataDir...dataDir + 1)
        try await lab.withServe(Array(arguments.dropFirst())) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            #expect(text.contains("/__storybridge/health"), "\(text)")
            #expect(serve.process.isRunning)
        }
        await lab.stopServer()
    }
}
