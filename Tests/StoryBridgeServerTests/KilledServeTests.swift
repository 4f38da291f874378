import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

@Suite("serve killed mid-visit")
struct KilledServeTests {
    @Test("SIGKILL during a visit: every answered write is in the database, and the restart finishes the open session by timeout")
    func killedMidVisit() async throws {
        try await withScratchFolder("sb-killed") { data in
            let arguments = [demoFolder.path, "--port", "0", "--data-dir", data.path, "--log-level", "error", "--session-timeout", "1s"]
            let serve = try await ServeProcess.start(arguments)
            defer { try? FileManager.default.removeItem(at: serve.errorsFile) }
            let page = try await serve.connectViewer()
            #expect(await page.nextEvent(named: "hello") != nil)
            let sessionId = try #require(try await page.request("getCurrentSessions").data["sessionId"]?.stringValue)
            var answered: [String] = []
            for index in 0..<30 {
                if try await page.request("setCustomEvent", data: ["key": .string("k\(index)"), "value": .int(index)]).status == .success {
                    answered.append("k\(index)")
                }
            }
            // More writes in flight, not waited for, when the process dies.
            for index in 30..<60 {
                page.send(
                    BridgeRequest(command: "setCustomEvent", data: ["key": .string("k\(index)"), "value": .int(index)], guid: "g\(index)"))
            }
            await killHard(serve.process)
            let inFlightAnswered = page.received.withLock { $0 }.compactMap { BridgeResponse(json: $0) }
                .filter { $0.status == .success && $0.guid.hasPrefix("g") }.map { "k" + $0.guid.dropFirst() }
            let answeredAtKill = Set(answered + inFlightAnswered)
            await page.close()
            #expect(answered.count == 30)

            // Older than the 1 s timeout by the time the next run starts.
            try await Task.sleep(for: .milliseconds(1_500))
            let restarted = try await ServeProcess.start(arguments)
            defer { try? FileManager.default.removeItem(at: restarted.errorsFile) }
            let database = try StoryBridgeDatabase(file: DataDirectory(data).database)
            let store = AnalyticsStore(database: database)
            let stored = Set(try await store.customEvents(sessionId: sessionId).map(\.key))
            #expect(answeredAtKill.isSubset(of: stored))
            let session = try #require(try await store.session(id: sessionId))
            #expect(session.state == .saved)
            #expect(session.endedBy == .timeout)
            #expect(try await store.outbox(status: .queued).contains { $0.entityId == sessionId })
            #expect(await restarted.interrupt() == 0)
        }
    }
}
