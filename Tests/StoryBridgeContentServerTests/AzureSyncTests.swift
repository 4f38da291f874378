import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: storybridge sync through Azure-form links")
struct AzureSyncTests {
    @Test("login and sync with --blob-links azure, the first download cut mid-body: the kiosk's library gets the exact decks")
    func syncThroughAzureLinks() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, title: "first deck", mediaBytes: 400_000)
        try lab.install(id: 2, title: "second deck", mediaBytes: 300_000)
        var configuration = lab.configuration(faults: TestFaults(dropAfterBytes: 150_000, dropTimes: 1))
        configuration.blobLinks = .azure
        let kiosk = DataDirectory(lab.folder.appendingPathComponent("kiosk"))
        try await lab.withRunningServer(configuration) { client, running in
            let link = try await client.packageLink(1, token: try await client.serviceToken())
            #expect(link.contains("&sr=b&sig="))
            let login = try await runStorybridgeToExit([
                "login", "--auth", running.baseURL, "--api", running.baseURL, "--client-id", ContentLab.serviceId, "--client-secret",
                ContentLab.serviceSecret, "--data-dir", kiosk.root.path,
            ])
            #expect(login.status == 0, "\(login.output)")
            let sync = try await runStorybridgeToExit(["sync", "--content", "--data-dir", kiosk.root.path])
            #expect(sync.status == 0, "\(sync.output)")
        }
        let installed = try LibraryStore(directory: kiosk).entries()
        #expect(Set(installed.map(\.presentation.id)) == [1, 2])
        for entry in installed {
            let served = try lab.library.entries().first { $0.presentation.id == entry.presentation.id }
            let original = try #require(served).presentation.root
            for file in ["index.html", "mediafiles/film.mp4"] {
                let synced = try Data(contentsOf: entry.presentation.root.appendingPathComponent(file))
                #expect(synced == (try Data(contentsOf: original.appendingPathComponent(file))), "\(entry.presentation.id) \(file)")
            }
        }
    }
}
