import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Testing

@Suite("storybridge login and sync against a content server", .serialized)
struct SyncCommandTests {
    @Test(
        "full sync, a second sync that downloads nothing, a revision bump that downloads only that package, a vanished presentation withdrawn, then removed after the grace"
    )
    func syncLifecycle() async throws {
        let lab = try await SyncLab.serving { lab in
            try lab.publish(id: 3, title: "three v1")
            try lab.publish(id: 4, title: "four v1")
        }
        let login = try await lab.loginAsUser()
        #expect(login.status == 0, "\(login.errors)")
        #expect(login.output.contains("anna"))
        let sessionFile = lab.clientDirectory.root.appendingPathComponent("sync-session.json")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: sessionFile.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue == 0o600)
        #expect(!(try String(contentsOf: sessionFile, encoding: .utf8)).contains(SyncLab.password))

        let first = try await lab.cli(["sync", "--content"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("content: 2 installed"))
        #expect(try lab.installedTitle(3) == "three v1")
        #expect(try lab.installedTitle(4) == "four v1")
        var catalog = try await lab.catalog()
        #expect(catalog[3]?.state == .ready && catalog[4]?.state == .ready)
        #expect(lab.leftoverDownloads().isEmpty)

        let second = try await lab.cli(["sync", "--content"])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output.contains("0 changed, 2 unchanged"))
        #expect(second.output.contains("content: 0 installed, 2 up to date, 0 failed; 0.0 MB transferred"))

        try lab.publish(id: 4, title: "four v2")
        let metadataOnly = try await lab.cli(["sync"])
        #expect(metadataOnly.status == 0, "\(metadataOnly.errors)")
        #expect(metadataOnly.output.contains("1 changed, 1 unchanged"))
        catalog = try await lab.catalog()
        #expect(catalog[4]?.state == .updateAvailable)
        #expect(catalog[3]?.state == .ready)
        let status = try await lab.cli(["sync", "--status", "--json"])
        #expect(status.output.contains("\"updateAvailable\""))
        let bump = try await lab.cli(["sync", "--content"])
        #expect(bump.status == 0, "\(bump.errors)")
        #expect(bump.output.contains("content: 1 installed, 1 up to date"))
        #expect(try lab.installedTitle(4) == "four v2")
        #expect(try lab.clientLibrary().entry(id: 4)?.presentation.revision == 2)

        let gone = try #require(try lab.clientLibrary().entry(id: 3)).presentation.root
        try lab.serverLibrary.remove(id: 3)
        let vanished = try await lab.cli(["sync"])
        #expect(vanished.status == 0, "\(vanished.errors)")
        #expect(vanished.output.contains("1 withdrawn, 0 removed"))
        #expect(try await lab.catalog()[3]?.state == .withdrawn)
        #expect(FileManager.default.fileExists(atPath: gone.appendingPathComponent("index.html").path))
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [4])
        let afterGrace = try await lab.cli(["sync", "--removal-grace", "0"])
        #expect(afterGrace.status == 0, "\(afterGrace.errors)")
        #expect(afterGrace.output.contains("0 withdrawn, 1 removed"))
        #expect(try lab.clientLibrary().entry(id: 3) == nil)
        #expect(!FileManager.default.fileExists(atPath: gone.path))
        #expect(try await lab.catalog()[3] == nil)
        await lab.stopServer()
    }

    @Test("wrong password, unreachable server and refused refresh each get their exit status and a plain message")
    func loginFailures() async throws {
        let lab = try await SyncLab.serving(faults: TestFaults(rejectRefresh: true)) { try $0.publish(id: 3) }
        let wrong = try await lab.loginAsUser(password: "not it")
        #expect(wrong.status == 77)
        #expect(wrong.errors.contains("refused the credentials (invalid_grant)"))
        #expect(!FileManager.default.fileExists(atPath: lab.clientDirectory.root.appendingPathComponent("sync-session.json").path))

        #expect(try await lab.loginAsUser().status == 0)
        // An access token the server no longer accepts: the one refresh is refused.
        try corruptStoredAccessToken(lab)
        let refused = try await lab.cli(["sync"])
        #expect(refused.status == 78)
        #expect(refused.errors.contains("refused to renew the session"))

        await lab.stopServer()
        // A port nothing listens on while the test holds it (the stopped server's port could be
        // taken by another test's server meanwhile, which would answer).
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let unreachable = try await lab.cli([
            "login", "--auth", "http://127.0.0.1:\(port)", "--api", "http://127.0.0.1:\(port)", "--client-id", "x",
            "--client-secret", "y",
        ])
        #expect(unreachable.status == 69)
        #expect(unreachable.errors.contains("cannot reach 127.0.0.1:\(port)"))
        #expect(!unreachable.errors.contains("Error Domain"))

        let loggedOut = try await lab.cli(["logout"])
        #expect(loggedOut.output.contains("logged out"))
        let notLoggedIn = try await lab.cli(["sync"])
        #expect(notLoggedIn.status == 78)
        #expect(notLoggedIn.errors.contains("not logged in"))
    }

    @Test("remove --content-only keeps the metadata; reset forgets everything synced; a skipped presentation is not fetched")
    func removeAndReset() async throws {
        let lab = try await SyncLab.loggedIn { lab in
            try lab.publish(id: 3)
            try lab.publish(id: 4)
        }
        #expect(try await lab.cli(["sync", "--content", "3"]).status == 0)
        var catalog = try await lab.catalog()
        #expect(catalog[3]?.state == .ready)
        #expect(catalog[4]?.state == .notDownloaded)

        let folder = try #require(try lab.clientLibrary().entry(id: 3)).presentation.root
        let removed = try await lab.cli(["remove", "3", "--content-only"])
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        catalog = try await lab.catalog()
        #expect(catalog[3]?.state == .notDownloaded)
        #expect(catalog[3]?.installedRevision == nil)
        #expect(try lab.clientLibrary().entry(id: 3) == nil)

        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        #expect(try lab.clientLibrary().entries().count == 2)
        let reset = try await lab.cli(["reset"])
        #expect(reset.status == 0, "\(reset.errors)")
        #expect(try lab.clientLibrary().entries().isEmpty)
        #expect(try await lab.catalog().isEmpty)
        await lab.stopServer()
    }

    func corruptStoredAccessToken(_ lab: SyncLab) throws {
        let file = lab.clientDirectory.root.appendingPathComponent("sync-session.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        object["accessToken"] = "not.a.token"
        try JSONSerialization.data(withJSONObject: object).write(to: file)
    }
}
