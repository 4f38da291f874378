import Foundation
import GRDB
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Testing

/// Signed packages end to end: a real content server on loopback that signs (its keys made by
/// `keys init`'s code), a kiosk data folder that pinned its root with `storybridge trust add`, and
/// `storybridge sync` as a child process.
@Suite("Sync: signed packages")
struct SignedSyncTests {
    @Test("with no root pinned, a first install records the SHA-256 of every file and shows unsigned")
    func unsignedFirstInstall() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 1) }
        let synced = try await lab.cli(["sync", "--content"])
        #expect(synced.status == 0, "\(synced.errors)")
        let row = try #require(try lab.trustRow(1))
        #expect(row["signed"] as Int == 0)
        let body = try SignedManifest.parse(Data((row["manifest"] as String).utf8))
        #expect(body.signatures.isEmpty)
        #expect(body.body.isLocal)
        let entry = try #require(try lab.clientLibrary().entry(id: 1))
        let hashed = try await TreeHasher().hash(tree: entry.presentation.root)
        #expect(body.body.files == hashed)
        #expect(body.body.files.map(\.path) == ["b.html", "index.html", "mediafiles/film.mp4"])
        #expect(row["manifestHash"] as String == (try body.hash))
        #expect(try lab.highWater(1) == nil)
    }

    @Test(
        "a signed package installs; a media file changed on the server's disk after signing is refused by name, the served revision untouched"
    )
    func changedFileRefused() async throws {
        let lab = try await SyncLab.serving(mediaOutsidePackages: true) { try $0.publish(id: 1, title: "v1") }
        await lab.stopServer()
        _ = try await lab.signAndPin()
        try await lab.startServer(mediaOutsidePackages: true)
        try await lab.loginAsService()
        let first = try await lab.cli(["sync", "--content"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(try lab.installedTitle(1) == "v1")
        let row = try #require(try lab.trustRow(1))
        #expect(row["signed"] as Int == 1)
        #expect(try lab.highWater(1)?.signedSince != nil)
        let keys = try ContentTrustFolder(dataDirectory: lab.serverDirectory).readKeys().body
        #expect(row["keyId"] as String? == keys.signingKeys.first?.key.keyId)

        // Revision 2 is signed, then its film is changed in place on the server (same size).
        try await lab.publishSigned(title: "v2")
        let served = try #require(try lab.serverLibrary.entry(id: 1))
        let film = served.presentation.root.appendingPathComponent("mediafiles/film.mp4")
        let handle = try FileHandle(forUpdating: film)
        try handle.seek(toOffset: 10)
        try handle.write(contentsOf: Data([0xFF, 0x00, 0xFF]))
        try handle.close()
        let refused = try await lab.cli(["sync", "--content"])
        #expect(refused.status == 65, "\(refused.output) \(refused.errors)")
        #expect(refused.errors.contains("manifest: 'mediafiles/film.mp4' differs"), "\(refused.errors)")
        #expect(try lab.installedTitle(1) == "v1")
        let failed = try #require(try await lab.catalog()[1])
        #expect(failed.lastError?.contains("'mediafiles/film.mp4' differs") == true, "\(failed.lastError ?? "")")
        #expect(try lab.trustRow(1)?["presentationRevision"] as Int? == 1)
        #expect(lab.leftoverDownloads().filter { $0.hasSuffix(".part") }.isEmpty)
        // The refused revision's manifest was stored once verified, before its files were
        // checked; no row names it, so the next sync sweeps it before it stores revision 3's.
        let afterRefusal = try lab.storedManifests()
        #expect(afterRefusal.stored.count == 2 && afterRefusal.named.count == 1, "\(afterRefusal)")
        #expect(afterRefusal.named.isSubset(of: afterRefusal.stored))
        try await lab.publishSigned(title: "v3")
        let third = try await lab.cli(["sync", "--content"])
        #expect(third.status == 0, "\(third.output) \(third.errors)")
        #expect(try lab.installedTitle(1) == "v3")
        let afterUpdate = try lab.storedManifests()
        #expect(afterUpdate.stored == afterUpdate.named, "\(afterUpdate)")
        #expect(afterUpdate.stored.isDisjoint(with: afterRefusal.stored.subtracting(afterRefusal.named)))
    }

    @Test("an unsigned update of a signed deck is refused (U1); --require-signed refuses an unsigned server (U2)")
    func unsignedRefusals() async throws {
        let lab = try await SyncLab.signedAndSynced()
        #expect(try lab.installedTitle(1) == "v1")
        // sync --status says the deck is signed, and until when.
        let expires = try #require(try lab.trustRow(1)?["expires"] as String?)
        let status = try await lab.cli(["sync", "--status"])
        #expect(status.output.contains("signed until \(expires.prefix(10))"), "\(status.output)")
        let document = try JSONValue.parse(try await lab.cli(["sync", "--status", "--json"]).output)
        let trust = try #require(document["presentations"]?.arrayValue?.first { $0["presId"] == 1 }?["trust"])
        #expect(
            trust["status"] == "signed" && trust["expired"] == false
                && trust["expires"]?.stringValue?.hasPrefix(String(expires.prefix(10))) == true)

        // The server stops signing: its answers carry no manifest link.
        try FileManager.default.removeItem(at: ContentTrustFolder(dataDirectory: lab.serverDirectory).root)
        try lab.publish(id: 1, title: "v2")
        var refused = try await lab.cli(["sync", "--content"])
        for _ in 0..<20 where !refused.errors.contains("arrived signed") {
            try await Task.sleep(for: .milliseconds(300))
            refused = try await lab.cli(["sync", "--content"])
        }
        #expect(refused.status == 65, "\(refused.errors)")
        #expect(refused.errors.contains("presentation 1 arrived signed on"), "\(refused.errors)")
        #expect(try lab.installedTitle(1) == "v1")

        let unsignedLab = try await SyncLab.loggedIn { try $0.publish(id: 2) }
        let required = try await unsignedLab.cli(["sync", "--content", "--require-signed"])
        #expect(required.status == 65, "\(required.errors)")
        #expect(required.errors.contains("unsigned"), "\(required.errors)")
        #expect(try unsignedLab.clientLibrary().entry(id: 2) == nil)
    }

    @Test("an expired manifest is refused with its date; a keys document replayed at a lower version refuses signed packages")
    func expiredAndReplayedKeys() async throws {
        let lab = try await SyncLab.serving { try $0.publish(id: 1, title: "v1") }
        await lab.stopServer()
        let rootOut = try await lab.signAndPin()
        try await lab.startServer()
        try await lab.loginAsService()
        let trust = ContentTrustFolder(dataDirectory: lab.serverDirectory)

        // The stored manifest re-signed by the server's own key with times in the past: served, expired.
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: trust.manifests.path).first)
        let file = trust.manifests.appendingPathComponent(name)
        let current = try SignedManifest.parse(Data(contentsOf: file))
        var body = current.body
        body.created = Date().addingTimeInterval(-40 * 86_400)
        body.expires = Date().addingTimeInterval(-10 * 86_400)
        let keys = try trust.readKeys().body
        let signing = try TrustKeyFile.readPrivateKey(at: trust.signingKey(keys.signingKeys[0].key.keyId).path)
        try SignedManifest(body: body).signed(with: signing, context: .manifest).encoded().write(to: file)
        let expired = try await lab.cli(["sync", "--content"])
        #expect(expired.status == 65, "\(expired.errors)")
        #expect(expired.errors.contains("expired on \(TrustTime.format(body.expires!))"), "\(expired.errors)")
        #expect(try lab.clientLibrary().entry(id: 1) == nil)
        try current.encoded().write(to: file)

        // The kiosk holds version 2; the server then offers version 1 again.
        let versionOne = try Data(contentsOf: trust.keysDocument)
        _ = try ContentServerKeys(folder: trust).addSigningKey(rootPath: rootOut, publicKeyFile: nil)
        let synced = try await lab.cli(["sync", "--content"])
        #expect(synced.status == 0, "\(synced.errors)")
        #expect(try KioskTrustStore(directory: lab.clientDirectory).heldKeys(root: trust.readKeys().body.root)?.body.version == 2)
        try versionOne.write(to: trust.keysDocument)
        try lab.publish(id: 1, title: "v2")
        try await Task.sleep(for: .seconds(2))
        let replayed = try await lab.cli(["sync", "--content"])
        #expect(replayed.status == 65, "\(replayed.errors)")
        #expect(replayed.errors.contains("older than the held version 2"), "\(replayed.errors)")
        #expect(try lab.installedTitle(1) == "v1")
    }
}
