import Foundation
import GRDB
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Testing

/// Manifests the content server itself never serves (it checks identity and signature first),
/// put in front of the kiosk by the `--test-serve-manifest` fault as a proxy on the path would;
/// and serve's scheduled sync judging packages by the config's `trust` section.
@Suite("Sync: signed packages behind a lying proxy")
struct SignedSyncProxyTests {
    /// A lab whose signing server served revision `v1` of deck 1, installed on the kiosk.
    private func installedV1() async throws -> (lab: SyncLab, rootOut: String) {
        let lab = try await SyncLab.serving { try $0.publish(id: 1, title: "v1") }
        await lab.stopServer()
        let rootOut = try await lab.signAndPin()
        try await lab.startServer()
        try await lab.loginAsService()
        let first = try await lab.cli(["sync", "--content"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(try lab.installedTitle(1) == "v1")
        return (lab, rootOut)
    }

    @Test("a manifest replayed from an older revision is refused (rule 4, identity); the served revision untouched")
    func replayedOlderRevision() async throws {
        let (lab, _) = try await installedV1()
        let replayed = lab.folder.appendingPathComponent("replayed.json")
        try FileManager.default.copyItem(at: try await lab.signedManifestFile(presentationRevision: 1), to: replayed)
        try await lab.publishSigned(title: "v2")
        lab.server!.updateFaults { $0.serveManifest = replayed }

        try await expectRefusedSync(lab, naming: ["the manifest is not this package's", "the manifest names presentation 1 revision 1"])
        #expect(try lab.highWater(1)?.presentationRevision == 1)
        #expect(lab.leftoverDownloads().filter { $0.hasSuffix(".part") }.isEmpty)

        // The proxy gone, the same offer installs.
        lab.server!.updateFaults { $0.serveManifest = nil }
        let repaired = try await lab.cli(["sync", "--content"])
        #expect(repaired.status == 0, "\(repaired.errors)")
        #expect(try lab.installedTitle(1) == "v2")
    }

    @Test("a manifest signed by a key revoked since is refused naming the key (rule 3); the served revision untouched")
    func revokedKey() async throws {
        let (lab, rootOut) = try await installedV1()
        let signedByOld = lab.folder.appendingPathComponent("by-revoked-key.json")
        try FileManager.default.copyItem(at: try await lab.publishSigned(title: "v2"), to: signedByOld)
        let keys = ContentServerKeys(folder: lab.serverTrust)
        let oldKey = try lab.serverTrust.readKeys().body.signingKeys[0].key.keyId
        _ = try keys.addSigningKey(rootPath: rootOut, publicKeyFile: nil)
        _ = try keys.revoke(keyId: oldKey, rootPath: rootOut, reason: "laptop lost")
        lab.server!.updateFaults { $0.serveManifest = signedByOld }

        try await expectRefusedSync(lab, naming: ["signed by key \(oldKey), revoked on", "laptop lost"])
        #expect(try KioskTrustStore(directory: lab.clientDirectory).heldKeys(root: lab.serverTrust.readKeys().body.root)?.body.version == 3)
        let failed = try #require(try await lab.catalog()[1])
        #expect(failed.lastError?.contains("revoked") == true, "\(failed.lastError ?? "")")
    }

    @Test("serve --sync-every reads trust.rootFile and trust.requireSigned from --config: a signed install with no root in the data folder")
    func serveReadsTrustConfig() async throws {
        let lab = try await SyncLab.serving { try $0.publish(id: 1, title: "v1") }
        await lab.stopServer()
        _ = try ContentServerKeys(folder: lab.serverTrust).initialise(
            rootOut: lab.folder.appendingPathComponent("root.key").path, offline: false)
        try await lab.startServer()
        try await lab.loginAsService()
        let config = lab.folder.appendingPathComponent("config.json")
        let text = #"{"trust": {"rootFile": "\#(lab.serverTrust.rootPublicKey.path)", "requireSigned": true}}"#
        try Data(text.utf8).write(to: config)
        try await lab.withServe(["--port", "0", "--log-level", "error", "--no-watch", "--sync-every", "1s", "--config", config.path]) {
            _ in
            try await SyncLab.waitUntil(seconds: 60) { (try? lab.trustRow(1)) != nil }
        }
        #expect(try lab.installedTitle(1) == "v1")
        #expect(try lab.trustRow(1)?["signed"] as Int? == 1)
        #expect(
            !FileManager.default.fileExists(
                atPath: KioskTrustStore(directory: lab.clientDirectory).folder.appendingPathComponent("root.pub.json").path))
    }

    /// Runs a sync that must be refused (exit 65) with every text of `naming` in its message, and
    /// checks that revision 1 (`v1`) is still served with its trust record.
    private func expectRefusedSync(_ lab: SyncLab, naming texts: [String]) async throws {
        let refused = try await lab.cli(["sync", "--content"])
        #expect(refused.status == 65, "\(refused.output) \(refused.errors)")
        for text in texts { #expect(refused.errors.contains(text), "\(refused.errors)") }
        #expect(try lab.installedTitle(1) == "v1")
        #expect(try lab.trustRow(1)?["presentationRevision"] as Int? == 1)
    }
}
