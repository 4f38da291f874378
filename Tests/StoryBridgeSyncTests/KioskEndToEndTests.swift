import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

@Suite("Sync end to end: a kiosk against a service that misbehaves as the real one can", .serialized)
struct KioskEndToEndTests {
    @Test(
        "204s, a 403 for one deck, a republished package, an empty client list once and rotating refresh tokens: the library ends complete and correct"
    )
    func kioskLibraryEndsCorrect() async throws {
        // Access tokens live 2 s; a used refresh token is refused at once (no grace).
        let lab = try await SyncLab.serving(tokenLifetime: 2, refreshGrace: 0) { lab in
            for id in 1...5 { try lab.publish(id: id, title: "deck \(id) v1", payloadBytes: 40_000) }
        }
        let server = try #require(lab.server)
        #expect(try await lab.loginAsUser().status == 0)
        let store = SessionStore(folder: lab.clientDirectory.root)
        let firstRefreshToken = try #require(try store.load()?.refreshToken)

        let baseline = try await lab.cli(["sync", "--content"])
        #expect(baseline.status == 0, "\(baseline.errors)")
        #expect(baseline.output.contains("content: 5 installed"))

        // 1. An empty client list (200 []) once: nothing is withdrawn, the kiosk keeps showing everything.
        server.updateFaults { $0.emptyClientLists = 1 }
        let empty = try await lab.cli(["sync", "--content"])
        #expect(empty.status == 80, "\(empty.output) \(empty.errors)")
        #expect(empty.errors.contains("none was withdrawn"))
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [1, 2, 3, 4, 5])

        // 2. Deck 4 deleted (204), deck 3 locked (403), deck 2's package republished under the same
        //    presentation revision, deck 5 given a new revision, deck 6 new without a package (204);
        //    the access token has expired, so the run starts with a refresh that rotates the token.
        server.updateFaults {
            $0.noContentPresentations = [4]
            $0.forbiddenPresentations = [3]
            $0.noContentPackages = [6]
        }
        let republished = try await server.republish(2)
        try lab.publish(id: 5, title: "deck 5 v2", payloadBytes: 40_000)
        try lab.publish(id: 6, title: "deck 6 v1", payloadBytes: 1000)
        try await server.waitForPackages()
        try await Task.sleep(for: .milliseconds(2100))
        let troubled = try await lab.cli(["sync", "--content"])
        #expect(troubled.status == 80, "\(troubled.output) \(troubled.errors)")
        #expect(troubled.errors.contains("presentation 3 failed: not allowed"))
        #expect(troubled.output.contains("1 withdrawn"))
        #expect(troubled.output.contains("content: 2 installed"))
        #expect(troubled.output.contains("presentation 6 has no package on the service: not downloaded (no package)"))
        var catalog = try await lab.catalog()
        #expect(catalog[4]?.state == .withdrawn)
        #expect(catalog[3]?.state == .failed)
        #expect(catalog[2]?.installedRevision == republished.revision)
        #expect(catalog[6]?.stateLabel == "not downloaded (no package)")
        // Deck 3's installed copy is still served; deck 4 is off the list but on disk.
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [1, 2, 3, 5])
        #expect(try lab.clientLibrary().entry(id: 4) != nil)
        let afterFirstRotation = try #require(try store.load()?.refreshToken)
        #expect(afterFirstRotation != firstRefreshToken)

        // 3. Deck 3 unlocked; the token expired again: a second rotation, from the rotated token.
        server.updateFaults { $0.forbiddenPresentations = [] }
        try await Task.sleep(for: .milliseconds(2100))
        let healed = try await lab.cli(["sync", "--content", "--removal-grace", "0s"])
        #expect(healed.status == 0, "\(healed.output) \(healed.errors)")
        #expect(try store.load()?.refreshToken != afterFirstRotation)

        // 4. Deck 4 is still gone and withdrawn past the grace: removed. The kiosk's library is
        //    decks 1, 2 (republished), 3, 5 (v2); every installed deck is ready and nothing is left over.
        let final = try await lab.cli(["sync", "--content", "--removal-grace", "0s"])
        #expect(final.status == 0, "\(final.output) \(final.errors)")
        let library = try lab.clientLibrary()
        #expect(try library.servedEntries().map(\.presentation.id) == [1, 2, 3, 5])
        #expect(try library.entries().map(\.presentation.id) == [1, 2, 3, 5])
        for id in [1, 2, 3] { #expect(try lab.installedTitle(id) == "deck \(id) v1") }
        #expect(try lab.installedTitle(5) == "deck 5 v2")
        catalog = try await lab.catalog()
        #expect(catalog.keys.sorted() == [1, 2, 3, 5, 6])
        for id in [1, 2, 3, 5] { #expect(catalog[id]?.state == .ready, "deck \(id): \(catalog[id]?.stateLabel ?? "-")") }
        #expect(catalog[2]?.installedRevision == republished.revision)
        #expect(lab.leftoverDownloads().isEmpty)
        #expect(try await lab.cli(["sync", "--status"]).output.contains("complete (exit status 0)"))
        await lab.stopServer()
    }
}
