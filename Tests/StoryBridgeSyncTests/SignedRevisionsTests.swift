import AsyncHTTPClient
import Foundation
import GRDB
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Testing

/// Signed revisions after they are installed (docs/design/TRUST.md 2.5, 2.6): rollback and pins
/// never consult the service and never lower the high-water mark; a re-signed manifest replaces
/// the stored one without a download; health says when a served deck's manifest expired.
@Suite("Sync: signed revisions kept, pinned, re-signed", .serialized)
struct SignedRevisionsTests {
    /// A lab whose kiosk installed deck 1 signed at `v1`, then `v2` (v1 kept for rollback).
    private func twoSignedRevisions() async throws -> SyncLab {
        let lab = try await SyncLab.signedAndSynced()
        try await lab.publishSigned(title: "v2")
        let update = try await lab.cli(["sync", "--content"])
        #expect(update.status == 0, "\(update.errors)")
        #expect(try lab.installedTitle(1) == "v2")
        #expect(try lab.highWater(1)?.presentationRevision == 2)
        return lab
    }

    @Test(
        "rollback offline to a kept revision whose manifest expired: served at once with its own record; health says expired (a notice, 200; 503 with --health-strict-trust)"
    )
    func rollbackToExpired() async throws {
        let lab = try await twoSignedRevisions()
        let kept = try #require(try lab.clientLibrary().keptRevisions(id: 1).first)
        let keptRow = try #require(try lab.trustRecord(folder: kept.folder))
        let expired = Date().addingTimeInterval(-86_400)
        try lab.setTrustValidity(folder: kept.folder, created: expired.addingTimeInterval(-30 * 86_400), expires: expired)
        await lab.stopServer()

        let rollback = try await lab.cli(["rollback", "1"])
        #expect(rollback.status == 0, "\(rollback.errors)")
        #expect(try lab.installedTitle(1) == "v1")
        let row = try #require(try lab.trustRow(1))
        #expect(row["folder"] as String == kept.folder)
        #expect(row["manifestHash"] as String == keptRow.manifestHash)
        #expect(row["presentationRevision"] as Int? == 1)
        #expect(try lab.highWater(1)?.presentationRevision == 2, "a rollback never lowers the mark")

        for strict in [false, true] {
            let flags = ["--port", "0", "--log-level", "error", "--no-watch"] + (strict ? ["--health-strict-trust"] : [])
            try await lab.withServe(flags) { serve in
                let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
                let base = String(try #require(text.firstMatch(of: /Health: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/health/)).1)
                let (status, body) = try await HealthTests.get("\(base)/__storybridge/health")
                let deck = try #require(body["decks"]?.arrayValue?.first)
                #expect(deck["trust"]?["status"] == "signed", "\(body)")
                #expect(deck["trust"]?["expired"] == true, "\(body)")
                #expect(deck["trust"]?["expires"]?.stringValue == TrustTime.format(expired), "\(body)")
                #expect(deck["trust"]?["keyId"] == nil && !body.jsonString().contains(keptRow.manifestHash), "health names no key or hash")
                let notice = "deck 1: manifest expired on"
                let notices = body["notices"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let problems = body["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if strict {
                    #expect(status == 503, "\(body)")
                    #expect(problems.contains { $0.hasPrefix(notice) }, "\(problems)")
                } else {
                    #expect(status == 200, "\(body)")
                    #expect(body["status"] == "ok")
                    #expect(
                        notices.contains { $0.hasPrefix(notice) && $0.hasSuffix("still served; no sync has brought a re-signed one") },
                        "\(notices)")
                }
            }
        }
    }

    @Test("pinned by a rollback, then the service goes back to an older revision: refused by rule 6, the pinned revision stays")
    func pinThenOlderOffer() async throws {
        let lab = try await twoSignedRevisions()
        #expect(try await lab.cli(["rollback", "1"]).status == 0)
        let pinnedFolder = try #require(try lab.trustRow(1)?["folder"] as String?)
        // The server's own library goes back to revision 1: a new package revision (3, above the
        // one rolled back from, so the pin is lifted) of an older presentation revision.
        try lab.publish(id: 1, title: "v1 again", revision: 1)
        _ = try await lab.signedManifestFile { $0.presentationRevision == 1 && $0.packageRevision == 3 }

        let refused = try await lab.cli(["sync", "--content"])
        #expect(refused.status == 65, "\(refused.output) \(refused.errors)")
        #expect(
            refused.errors.contains("no going back: presentation revision 1 is older than revision 2 installed signed"), "\(refused.errors)"
        )
        #expect(try lab.installedTitle(1) == "v1")
        #expect(try lab.trustRow(1)?["folder"] as String? == pinnedFolder)
        #expect(try lab.highWater(1)?.presentationRevision == 2)
        #expect(lab.leftoverDownloads().filter { $0.hasSuffix(".part") }.isEmpty)
    }

    @Test(
        "a re-signed manifest replaces the stored one without a download once less than half its lifetime is left; one listing other files is refused, the stored one kept"
    )
    func reSignedManifest() async throws {
        let lab = try await SyncLab.signedAndSynced()
        let installed = try #require(try lab.trustRow(1))
        let folder: String = installed["folder"]
        let storedHash: String = installed["manifestHash"]
        let factsBefore = try #require(VerifiedFacts.load(forFolder: folder, in: lab.clientDirectory))
        #expect(factsBefore.manifestHash == storedHash)
        // Twenty of its thirty days have passed (as far as the kiosk's record says).
        try lab.setTrustValidity(
            folder: folder, created: Date().addingTimeInterval(-20 * 86_400), expires: Date().addingTimeInterval(10 * 86_400))
        let file = try await lab.signedManifestFile(presentationRevision: 1)
        let original = try Data(contentsOf: file)

        // A manifest of the same revision listing a changed file: not a re-signing.
        _ = try lab.resign(file) { body in
            body.created = Date()
            body.files[0].sha256 = String(repeating: "0", count: 64)
        }
        let refused = try await lab.cli(["sync", "--content"])
        #expect(refused.status == 0, "\(refused.errors)")
        #expect(refused.output.contains("presentation 1: the re-signed manifest was not taken"), "\(refused.output)")
        #expect(refused.output.contains("lists other files"), "\(refused.output)")
        #expect(try lab.trustRow(1)?["manifestHash"] as String? == storedHash)

        // Re-signed properly: same files and revisions, later created, new expiry.
        try original.write(to: file)
        let renewedExpiry = Date().addingTimeInterval(30 * 86_400)
        let resigned = try lab.resign(file) { body in
            body.created = Date()
            body.expires = renewedExpiry
        }
        let synced = try await lab.cli(["sync", "--content"])
        #expect(synced.status == 0, "\(synced.errors)")
        #expect(synced.output.contains("presentation 1: re-signed manifest stored (no download)"), "\(synced.output)")
        #expect(synced.output.contains("0 installed, 1 up to date"), "\(synced.output)")
        #expect(synced.output.contains("0.0 MB transferred"), "\(synced.output)")
        let row = try #require(try lab.trustRow(1))
        #expect(row["folder"] as String == folder, "no file was touched")
        #expect(row["manifestHash"] as String == (try resigned.hash))
        #expect(row["expires"] as String? == TrustTime.format(renewedExpiry))
        #expect(try SignedManifest.parse(Data((row["manifest"] as String).utf8)).hash == resigned.hash)
        // The verified facts follow the re-signed manifest (same files and hashes), so the next
        // delta still vouches for the reused files.
        let factsAfter = try #require(VerifiedFacts.load(forFolder: folder, in: lab.clientDirectory))
        #expect(factsAfter.manifestHash == (try resigned.hash))
        #expect(factsAfter.files == factsBefore.files)

        // More than half its lifetime left now: the next sync does not ask.
        let quiet = try await lab.cli(["sync", "--content"])
        #expect(quiet.status == 0, "\(quiet.errors)")
        #expect(!quiet.output.contains("re-signed"), "\(quiet.output)")
    }

    @Test("rollback reads the kept revision first: one whose files differ from its manifest is refused (65), nothing changes")
    func rollbackChecksTarget() async throws {
        let lab = try await twoSignedRevisions()
        let kept = try #require(try lab.clientLibrary().keptRevisions(id: 1).first)
        let file = lab.clientDirectory.presentations.appendingPathComponent(kept.folder).appendingPathComponent("b.html")
        let original = try Data(contentsOf: file)
        try Data("changed while kept".utf8).write(to: file)

        let refused = try await lab.cli(["rollback", "1"])
        #expect(refused.status == 65, "\(refused.output) \(refused.errors)")
        #expect(
            refused.errors.contains("rollback refused: the kept revision 1 differs from its manifest: 'b.html' differs"),
            "\(refused.errors)")
        #expect(try lab.installedTitle(1) == "v2")
        #expect(try lab.clientLibrary().pin(id: 1) == nil)

        try original.write(to: file)
        let rolledBack = try await lab.cli(["rollback", "1"])
        #expect(rolledBack.status == 0, "\(rolledBack.errors)")
        #expect(try lab.installedTitle(1) == "v1")
    }

    @Test("remove forgets a presentation's trust records and mark: offered again, it installs afresh")
    func removeForgetsTrust() async throws {
        let lab = try await twoSignedRevisions()
        let removed = try await lab.cli(["remove", "1"])
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(try lab.highWater(1) == nil)
        #expect(try lab.trustRecordCount(presentationId: 1) == 0, "kept and served rows alike")
        let again = try await lab.cli(["sync", "--content"])
        #expect(again.status == 0, "\(again.errors)")
        #expect(try lab.installedTitle(1) == "v2")
        #expect(try lab.highWater(1)?.presentationRevision == 2)
    }
}
