import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// `storybridge trust add|show` on a kiosk data folder, with the root.pub.json a content server's
/// `keys init` wrote, as child processes.
@Suite("Kiosk: trust add and show")
struct TrustCommandTests {
    private func storybridge(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runStorybridgeToExit(arguments)
    }

    @Test("trust add pins a server's root; a different root needs --replace (78); show prints the pinned root; trust.rootFile wins")
    func addAndShow() async throws {
        let server = try ContentLab()
        let other = try ContentLab()
        for lab in [server, other] {
            let made = try await storybridge([
                "content-server", "keys", "init", "--root-out", lab.folder.appendingPathComponent("root.key").path, "--data-dir",
                lab.directory.root.path,
            ])
            #expect(made.status == 0, "\(made.output)")
        }
        let rootFile = ContentTrustFolder(dataDirectory: server.directory).rootPublicKey.path
        let otherRootFile = ContentTrustFolder(dataDirectory: other.directory).rootPublicKey.path
        let root = try TrustKeyFile.readPublicKey(at: rootFile)
        let kiosk = server.folder.appendingPathComponent("kiosk").path

        let shownEmpty = try await storybridge(["trust", "show", "--data-dir", kiosk])
        #expect(shownEmpty.status == 0)
        #expect(shownEmpty.output.contains("No root pinned"))
        let added = try await storybridge(["trust", "add", rootFile, "--data-dir", kiosk])
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains(root.keyId))
        #expect(try await storybridge(["trust", "add", rootFile, "--data-dir", kiosk]).output.contains("pinned already"))

        let refused = try await storybridge(["trust", "add", otherRootFile, "--data-dir", kiosk])
        #expect(refused.status == 78, "\(refused.output)")
        #expect(refused.output.contains("--replace"))
        let shown = try await storybridge(["trust", "show", "--json", "--data-dir", kiosk])
        #expect(try JSONValue.parse(shown.output.trimmingCharacters(in: .whitespacesAndNewlines))["root"]?.stringValue == root.keyId)
        let replaced = try await storybridge(["trust", "add", otherRootFile, "--replace", "--data-dir", kiosk])
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(try KioskTrustStore(directory: DataDirectory(URL(fileURLWithPath: kiosk))).pinnedRoot()?.keyId != root.keyId)

        let unreadable = try await storybridge([
            "trust", "add", server.folder.appendingPathComponent("nothing.json").path, "--data-dir", kiosk,
        ])
        #expect(unreadable.status == 65, "\(unreadable.output)")

        // A config naming the root file: show reads it, add refuses and says to edit that file.
        let config = server.folder.appendingPathComponent("config.json")
        try Data(#"{"trust": {"rootFile": "\#(rootFile)"}}"#.utf8).write(to: config)
        let configured = try await storybridge(["trust", "show", "--config", config.path, "--data-dir", kiosk])
        #expect(configured.output.contains("Pinned root: \(root.keyId) (\(rootFile))"), "\(configured.output)")
        let hint = try await storybridge(["trust", "add", otherRootFile, "--replace", "--config", config.path, "--data-dir", kiosk])
        #expect(hint.status == 78, "\(hint.output)")
        #expect(hint.output.contains("trust.rootFile"))
    }
}
