import AsyncHTTPClient
import Foundation
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting
import Testing

@Suite("serve's GET /__storybridge/health and doctor --url", .serialized)
struct HealthTests {
    @Test(
        "health answers 200 with the sync, decks, upload queue and disk without a token; 503 with the reason once sync fails past the threshold; doctor --url says so"
    )
    func healthFollowsSync() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 3) }
        try await lab.withServe(
            ["--port", "0", "--log-level", "error", "--no-watch", "--sync-every", "1s", "--health-sync-failing", "2s"]
        ) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            let base = String(try #require(text.firstMatch(of: /Health: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/health/)).1)
            try await SyncLab.waitUntil(seconds: 60) { (try? lab.installedTitle(3)) == "v1" }
            var healthy: JSONValue = .null
            for _ in 0..<300 {
                let (status, body) = try await Self.get("\(base)/__storybridge/health")
                healthy = body
                // The deck shows its revision at the swap; the run's result is recorded when the
                // run ends (after the ready tree's build and the run record): wait for both.
                if status == 200, body["decks"]?.arrayValue?.first?["revision"] != .null, body["sync"]?["lastResult"] == "ok" {
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(healthy["status"] == "ok", "\(healthy)")
            #expect(healthy["sync"]?["lastResult"] == "ok")
            #expect(healthy["sync"]?["nextRunAt"]?.stringValue != nil || healthy["sync"]?["running"] == true)
            let deck = try #require(healthy["decks"]?.arrayValue?.first)
            #expect(deck["id"] == 3)
            #expect(deck["state"] == "ready")
            #expect(healthy["upload"]?["queued"] == 0)
            #expect((healthy["disk"]?["freeBytes"]?.intValue ?? 0) > 0)
            #expect(!healthy.jsonString().contains("Deck 3"), "the health answer names a deck")
            let doctorOK = try await lab.cli(["doctor", "--port", "0", "--url", base])
            #expect(doctorOK.output.contains("healthy"), "\(doctorOK.output)")

            // The kiosk loses its login: every sync fails at once, and after 2 s health says why.
            #expect(try await lab.cli(["logout"]).status == 0)
            var answer: (Int, JSONValue) = (0, .null)
            for _ in 0..<400 {
                answer = try await Self.get("\(base)/__storybridge/health")
                if answer.0 == 503 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(answer.0 == 503, "\(answer.1)")
            #expect(answer.1["status"] == "unhealthy")
            #expect(answer.1["sync"]?["lastResult"] == "failed")
            let reasons = answer.1["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(reasons.contains { $0.hasPrefix("sync failing since") }, "\(reasons)")
            let doctorBad = try await lab.cli(["doctor", "--port", "0", "--url", base])
            #expect(doctorBad.status == 1)
            #expect(doctorBad.output.contains("sync failing since"), "\(doctorBad.output)")
        }
        await lab.stopServer()
    }

    @Test("a data folder with less free disk than --health-min-free is unhealthy: 503 naming the disk")
    func diskThreshold() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 3) }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        await lab.stopServer()
        try await lab.withServe(["--port", "0", "--log-level", "error", "--no-watch", "--health-min-free", "1000000000"]) {
            serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            let base = String(try #require(text.firstMatch(of: /Health: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/health/)).1)
            let (status, body) = try await Self.get("\(base)/__storybridge/health")
            #expect(status == 503)
            let reasons = body["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(reasons.contains { $0.hasPrefix("disk nearly full") }, "\(reasons)")
            #expect(body["sync"] == .null)
            #expect(body["decks"]?.arrayValue?.first?["revision"]?.intValue != nil)
        }
    }

    static func get(_ url: String) async throws -> (Int, JSONValue) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), try JSONValue.parse(Data(buffer: body)))
    }
}
