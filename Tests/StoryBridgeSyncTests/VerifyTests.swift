import AsyncHTTPClient
import Foundation
import GRDB
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting
import Testing

/// `storybridge verify` against real installed trees (docs/design/TRUST.md 3.1, 3.2): files changed
/// on the kiosk's disk are named and the deck quarantined; health lists it; the next sync
/// downloads it again in full; `--release` clears a quarantine only once the files are restored.
@Suite("storybridge verify and quarantine", .serialized)
struct VerifyTests {
    @Test(
        "verify names changed, missing and added files and quarantines the deck; health lists it; the next sync repairs it with a full download"
    )
    func quarantineAndRepair() async throws {
        let lab = try await SyncLab.signedAndSynced()
        let clean = try await lab.cli(["verify"])
        #expect(clean.status == 0, "\(clean.errors)")
        #expect(clean.output.contains("1 rev 1 signed (key "), "\(clean.output)")
        #expect(clean.output.hasSuffix(": ok\n"), "\(clean.output)")

        let folder = try #require(try lab.clientLibrary().folder(id: 1))
        let servedFolder = folder.lastPathComponent
        try Data("<!DOCTYPE html><html><body>changed on the kiosk</body></html>".utf8).write(to: folder.appendingPathComponent("b.html"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("mediafiles/film.mp4"))
        try Data("alert(1)".utf8).write(to: folder.appendingPathComponent("x.js"))

        let found = try await lab.cli(["verify", "1"])
        #expect(found.status == 65, "\(found.output) \(found.errors)")
        #expect(found.output.contains(": differs, quarantined"), "\(found.output)")
        #expect(found.output.contains("  changed: b.html"), "\(found.output)")
        #expect(found.output.contains("  missing: mediafiles/film.mp4"), "\(found.output)")
        #expect(found.output.contains("  added: x.js"), "\(found.output)")
        let asJSON = try await lab.cli(["verify", "--json"])
        #expect(asJSON.status == 65)
        let deck = try #require(try JSONValue.parse(Data(asJSON.output.utf8)).arrayValue?.first)
        #expect(deck["status"] == "differs" && deck["quarantined"] == true, "\(deck)")
        #expect(
            deck["changed"] == .array(["b.html"]) && deck["missing"] == .array(["mediafiles/film.mp4"]) && deck["added"] == .array(["x.js"])
        )
        let row = try #require(try lab.trustRow(1))
        #expect(row["state"] as String == "quarantined")
        #expect(row["quarantineReason"] as String? == "'b.html' differs; 3 files differ (1 changed, 1 missing, 1 added)")
        let released = try await lab.cli(["verify", "--release", "1"])
        #expect(released.status == 65 && released.errors.contains("stays quarantined"), "\(released.errors)")
        #expect(try await lab.cli(["verify", "7"]).status == 66)

        // Health: a quarantined deck is a problem (503). The server stops (its port kept for the login).
        await lab.server?.stop()
        try await lab.withServe(["--port", "0", "--log-level", "error", "--no-watch"]) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            let base = String(try #require(text.firstMatch(of: /Health: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/health/)).1)
            let (status, body) = try await HealthTests.get("\(base)/__storybridge/health")
            #expect(status == 503, "\(body)")
            #expect(body["decks"]?.arrayValue?.first?["trust"]?["status"] == "quarantined", "\(body)")
            let problems = body["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(
                problems.contains("deck 1 quarantined: 'b.html' differs; 3 files differ (1 changed, 1 missing, 1 added)"), "\(problems)")
        }

        // The next sync downloads the same revision again, whole (no delta of the suspect tree).
        try await lab.startServer()
        let repaired = try await lab.cli(["sync", "--content"])
        #expect(repaired.status == 0, "\(repaired.errors)")
        #expect(repaired.output.contains("content: 1 installed"), "\(repaired.output)")
        #expect(!repaired.output.contains("delta update"), "\(repaired.output)")
        let after = try #require(try lab.trustRow(1))
        #expect(after["state"] as String == "verified")
        #expect(after["folder"] as String != servedFolder)
        #expect(try await lab.cli(["verify"]).status == 0)
    }

    @Test("a deck without a record gets its first hashes; a quarantine is released only once the files are restored")
    func firstHashesAndRelease() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 2) }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        // As if installed before signed packages existed: no record.
        try lab.forgetTrustRecords()
        let first = try await lab.cli(["verify", "2"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("2 rev 1 unsigned: unsigned (first hashes recorded now)"), "\(first.output)")
        #expect(try lab.trustRow(2)?["signed"] as Int? == 0)

        let file = try #require(try lab.clientLibrary().folder(id: 2)).appendingPathComponent("index.html")
        let original = try Data(contentsOf: file)
        try Data("<!DOCTYPE html><title>x</title>".utf8).write(to: file)
        let changed = try await lab.cli(["verify"])
        #expect(changed.status == 65)
        #expect(changed.output.contains("2 rev 1 unsigned: differs, quarantined"), "\(changed.output)")
        #expect(try await lab.cli(["verify", "--release", "2"]).status == 65)
        try original.write(to: file)
        let released = try await lab.cli(["verify", "--release", "2"])
        #expect(released.status == 0, "\(released.errors)")
        #expect(released.output.contains("presentation 2: files verified, quarantine released"))
        #expect(try lab.trustRow(2)?["state"] as String? == "verified")
        #expect(try lab.trustRow(2)?["quarantineReason"] as String? == nil)
    }

    @Test(
        "a deck verify quarantines while serve shows it: its session ends (endedBy quarantine), its viewer reloads, its slides answer 503 with the withheld page, an open gets unavailable/quarantined; released, it is served again"
    )
    func quarantineWhileServing() async throws {
        let lab = try await SyncLab.loggedIn {
            try $0.publish(id: 1, title: "deck 1")
            try $0.publish(id: 2, title: "deck 2")
        }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let file = try #require(try lab.clientLibrary().folder(id: 1)).appendingPathComponent("b.html")
        let original = try Data(contentsOf: file)
        try await lab.withServedLibrary { _, served in
            let baseURL = served.baseURL
            let viewer = try await served.connectViewer(presentationId: 1)
            #expect(try await Self.fetch("\(baseURL)/p/1/index.html").status == 200)

            try Data("changed on the kiosk".utf8).write(to: file)
            try await SyncLab.waitUntil { (try? lab.sessionEnds(presentationId: 1))?.count == 1 }
            #expect(try lab.sessionEnds(presentationId: 1) == [nil], "a session in progress")
            #expect(try await lab.cli(["verify", "1"]).status == 65)
            #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(15)) != nil)
            // The open session ended when the deck was withheld, and says why.
            #expect(try lab.sessionEnds(presentationId: 1) == ["quarantine"])
            let withheld = try await Self.fetch("\(baseURL)/p/1/index.html")
            #expect(withheld.status == 503, "\(withheld.body)")
            #expect(withheld.body.contains("id=\"quarantined-presentation\""), "\(withheld.body)")
            #expect(withheld.body.contains("failed its integrity check (&#39;b.html&#39; differs; 1 file differ"), "\(withheld.body)")
            #expect(try await Self.fetch("\(baseURL)/p/2/index.html").status == 200)
            await viewer.close()

            // From another deck, an open of the quarantined one says why.
            let other = try await served.connectViewer(presentationId: 2)
            other.send(BridgeRequest(command: "open", data: ["presId": 1], guid: other.makeGUID()))
            let unavailable = try #require(await other.nextEvent(named: "unavailable", timeout: .seconds(10)))
            #expect(unavailable.data["reason"] == "quarantined", "\(unavailable.data)")
            await other.close()

            try original.write(to: file)
            #expect(try await lab.cli(["verify", "--release", "1"]).status == 0)
            let status = try await polledStatus(of: "\(baseURL)/p/1/index.html", until: 200, get: Self.fetch)
            #expect(status == 200)
        }
    }

    @Test("serve FOLDER says it serves from disk, not signed, not verified; health's trust status is local folder")
    func servedFolderIsLocal() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 1) }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let folder = try #require(try lab.clientLibrary().folder(id: 1))
        try await lab.withServe([folder.path, "--port", "0", "--log-level", "error", "--no-watch"]) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            #expect(text.contains("(from disk: not signed, not verified)"), "\(text)")
            let base = String(try #require(text.firstMatch(of: /Health: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/health/)).1)
            let (_, body) = try await HealthTests.get("\(base)/__storybridge/health")
            #expect(body["decks"]?.arrayValue?.first?["trust"]?["status"] == "local folder", "\(body)")
        }
    }

    @Test("serve's scheduled verification (trust.verifyEvery) quarantines a deck whose files changed: withheld (503), listed by health")
    func scheduledVerification() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 1) }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let file = try #require(try lab.clientLibrary().folder(id: 1)).appendingPathComponent("b.html")
        let config = lab.folder.appendingPathComponent("config.json")
        try Data(#"{"trust": {"verifyEvery": "1s"}}"#.utf8).write(to: config)
        try await lab.withServe(["--port", "0", "--log-level", "error", "--no-watch", "--config", config.path]) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            let base = String(try #require(text.firstMatch(of: /Health: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/health/)).1)
            #expect(try await Self.fetch("\(base)/p/1/index.html").status == 200)
            try Data("changed on the kiosk".utf8).write(to: file)
            let status = try await polledStatus(of: "\(base)/p/1/b.html", until: 503, timeout: .seconds(30), get: Self.fetch)
            #expect(status == 503)
            let (healthStatus, body) = try await HealthTests.get("\(base)/__storybridge/health")
            #expect(healthStatus == 503, "\(body)")
            let problems = body["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(problems.contains { $0.hasPrefix("deck 1 quarantined: 'b.html' differs") }, "\(problems)")
        }
        #expect(try lab.trustRow(1)?["state"] as String? == "quarantined")
    }

    static func fetch(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }
}
