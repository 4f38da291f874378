import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

@Suite("Sync: 204, 403, skip and API address as the real service sends them", .serialized)
struct ServiceRepliesTests {
    @Test("204 on a presentation withdraws it; 403 on another marks that one failed, the run goes on, exits 80 and --status says why")
    func oneBadPresentationDoesNotStopTheRun() async throws {
        let lab = try await SyncLab.loggedIn { for id in 1...4 { try $0.publish(id: id, title: "deck \(id) v1") } }
        let first = try await lab.cli(["sync"])
        #expect(first.status == 0, "\(first.errors)")

        try lab.publish(id: 1, title: "deck 1 v2")
        lab.server!.updateFaults {
            $0.noContentPresentations = [2]
            $0.forbiddenPresentations = [3]
        }
        let partial = try await lab.cli(["sync"])
        #expect(partial.status == 80, "\(partial.output) \(partial.errors)")
        #expect(partial.output.contains("1 withdrawn"))
        #expect(partial.output.contains("1 failed"))
        #expect(partial.errors.contains("presentation 3 failed: not allowed: the application lacks access or the client is inactive"))
        var catalog = try await lab.catalog()
        #expect(catalog[1]?.fetchedRevision == 2, "the other presentations' changes are saved")
        #expect(catalog[2]?.state == .withdrawn)
        #expect(catalog[3]?.state == .failed)
        #expect(catalog[3]?.stateLabel.hasPrefix("failed (not allowed") == true)
        #expect(catalog[4]?.state == .notDownloaded)
        let status = try await lab.cli(["sync", "--status"])
        #expect(status.output.contains("partial (exit status 80)"))
        #expect(status.output.contains("- presentation 3 failed: not allowed"))

        lab.server!.updateFaults {
            $0.noContentPresentations = []
            $0.forbiddenPresentations = []
        }
        let healed = try await lab.cli(["sync"])
        #expect(healed.status == 0, "\(healed.errors)")
        #expect(healed.output.contains("1 offered again"))
        catalog = try await lab.catalog()
        #expect(catalog[2]?.state == .notDownloaded && catalog[2]?.withdrawnAt == nil)
        #expect(catalog[3]?.state == .notDownloaded && catalog[3]?.lastError == nil)
        #expect(try await lab.cli(["sync", "--status"]).output.contains("complete (exit status 0)"))
        await lab.stopServer()
    }

    @Test("404 on a presentation (deleted between the list and the fetch) is handled like a vanished one: withdrawn")
    func missingPresentationWithdrawn() async throws {
        let lab = try await SyncLab.serving { for id in 1...3 { try $0.publish(id: id) } }
        let front = try RewritingFront(upstream: lab.baseURL, refusing: { $0 == "/v1/presentations/3" ? 404 : nil })
        try await lab.loginAsService(api: lab.baseURL)
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        try await lab.loginAsService(api: front.baseURL)
        let run = try await lab.cli(["sync"])
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        #expect(run.output.contains("1 withdrawn"))
        #expect(try await lab.catalog()[3]?.state == .withdrawn)
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [1, 2])
        await front.stop()
        await lab.stopServer()
    }

    @Test("204 on a content package is 'not downloaded (no package)', not a failure")
    func packageWithNoContent() async throws {
        let lab = try await SyncLab.serving(faults: TestFaults(noContentPackages: [2])) { lab in
            try lab.publish(id: 1)
            try lab.publish(id: 2)
        }
        try await lab.loginAsService()
        let run = try await lab.cli(["sync", "--content"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("content: 1 installed"))
        #expect(run.output.contains("presentation 2 has no package on the service: not downloaded (no package)"))
        let row = try #require(try await lab.catalog()[2])
        #expect(row.stateLabel == "not downloaded (no package)")
        #expect(try lab.clientLibrary().entry(id: 2) == nil)
        #expect(try lab.clientLibrary().entry(id: 1) != nil)
        await lab.stopServer()
    }

    @Test("403 on a content package says 'not allowed' with exit status 79")
    func forbiddenPackage() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 1) }
        #expect(try await lab.cli(["sync"]).status == 0)
        lab.server!.updateFaults { $0.forbiddenPresentations = [1] }
        let run = try await lab.cli(["sync", "--content", "1"])
        #expect(run.status == 79, "\(run.output) \(run.errors)")
        #expect(run.errors.contains("not allowed: the application lacks access or the client is inactive"))
        await lab.stopServer()
    }

    @Test("403 on the client list (no content scope, inactive client) stops the run with 'not allowed' and exit status 79")
    func forbiddenClientList() async throws {
        let lab = try await SyncLab.serving { try $0.publish(id: 1) }
        let front = try RewritingFront(upstream: lab.baseURL, refusing: { $0 == "/v1/clients/" ? 403 : nil })
        try await lab.loginAsService(api: front.baseURL)
        let run = try await lab.cli(["sync"])
        #expect(run.status == 79, "\(run.output) \(run.errors)")
        #expect(run.errors.contains("not allowed: the application lacks access or the client is inactive (HTTP 403 to /v1/clients/)"))
        #expect(try await lab.cli(["sync", "--status"]).output.contains("failed (exit status 79)"))
        await front.stop()
        await lab.stopServer()
    }

    @Test("--api ending in /v1/ (as the Android app is configured) reaches /v1/clients/, not /v1/v1/clients/")
    func apiAddressWithVersion() async throws {
        let lab = try await SyncLab.serving { try $0.publish(id: 1) }
        let login = try await lab.cli([
            "login", "--auth", lab.baseURL, "--api", lab.baseURL + "/v1/", "--client-id", SyncLab.serviceId, "--client-secret",
            SyncLab.serviceSecret,
        ])
        #expect(login.status == 0, "\(login.errors)")
        let run = try await lab.cli(["sync", "--content"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("content: 1 installed"))
        #expect(ContentAPIClient.root(of: URL(string: "https://api.storyclm.com/v1/")!) == "https://api.storyclm.com")
        #expect(ContentAPIClient.root(of: URL(string: "https://api.storyclm.com")!) == "https://api.storyclm.com")
        await lab.stopServer()
    }

    @Test("sync --content ID of a deck marked skip says so and downloads nothing")
    func skipDeckById() async throws {
        let lab = try SyncLab()
        try lab.publish(id: 1)
        try lab.publish(id: 2)
        try await lab.startServer(presentations: [.init(id: 1), .init(id: 2, skip: true)])
        try await lab.loginAsService()
        let run = try await lab.cli(["sync", "--content", "2"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("presentation 2 is marked skip on the service: not downloaded"))
        #expect(run.output.contains("content: 0 installed, 0 up to date"))
        #expect(try lab.clientLibrary().entry(id: 2) == nil)
        await lab.stopServer()
    }
}
