import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Testing

/// The content service's flags from `storybridge sync` to what `list` and a running `serve` of
/// the library show: real content server, real CLI, real SQLite catalog.
@Suite("Platform flags after storybridge sync", .serialized)
struct PlatformFlagsSyncTests {
    /// Starts (or restarts on the same port) the lab's content server with one client holding
    /// `entries`, with their flags.
    func startServer(_ lab: SyncLab, _ entries: [ContentServerAccounts.PresentationEntry]) async throws {
        let port = lab.server?.port ?? 0
        await lab.server?.stop()
        let accounts = ContentServerAccounts(
            clients: [.init(id: 7, name: "Kiosks", presentations: entries)],
            services: [.init(clientId: SyncLab.serviceId, clientSecret: SyncLab.serviceSecret)])
        let configuration = ContentServerConfiguration(
            host: "127.0.0.1", port: port, dataDirectory: lab.serverDirectory, accounts: accounts, signingSecret: lab.secret)
        var logger = Logger(label: "test.content-server")
        logger.logLevel = .critical
        lab.server = try await ContentServer(configuration: configuration, logger: logger).start()
    }

    /// A lab whose server serves deck 4 with no flag, synced by the CLI logged in as the service.
    func syncedDeck4(sourceLocation: SourceLocation = #_sourceLocation) async throws -> SyncLab {
        let lab = try SyncLab()
        try lab.publish(id: 4, title: "deck 4")
        try await startServer(lab, [.init(id: 4)])
        try await lab.loginAsService()
        #expect(try await lab.cli(["sync", "--content"]).status == 0, sourceLocation: sourceLocation)
        return lab
    }

    @Test(
        "after sync: list leaves hidden decks out (--all shows them), serve keeps them off the launcher but opens them by link, refuses the blocked one, and names a deck not downloaded"
    )
    func flagsAfterSync() async throws {
        let lab = try SyncLab()
        for id in [4, 5, 6, 8, 10] { try lab.publish(id: id, title: "deck \(id)") }
        try await startServer(
            lab,
            [
                .init(id: 4), .init(id: 5, visibility: false), .init(id: 6, lockout: true), .init(id: 8),
                .init(id: 10, lockout: true, visibility: false),
            ])
        try await lab.loginAsService()
        let sync = try await lab.cli(["sync", "--content", "4", "5", "6"])
        #expect(sync.status == 0, "\(sync.errors)")
        // A deck installed by hand under an id the service also uses is not the service's package:
        // its flags do not apply.
        let handMade = lab.folder.appendingPathComponent("hand-10.zip")
        let writer = try ZipWriter(path: handMade.path)
        try writer.add("index.html", text: "<html><head><title>hand</title></head><body>hand 10</body></html>")
        try writer.close()
        let install = try await lab.cli(["install", handMade.path, "--id", "10", "--name", "Hand 10"])
        #expect(install.status == 0, "\(install.errors)")

        let list = try await lab.cli(["list"])
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.output.contains("Deck 4"))
        #expect(!list.output.contains("Deck 5"))
        #expect(list.output.contains("Deck 6  [blocked]"))
        #expect(list.output.contains("Hand 10\n"))
        #expect(list.output.contains("1 hidden presentation not listed (storybridge list --all shows them)."))
        let all = try await lab.cli(["list", "--all"])
        #expect(all.output.contains("Deck 5  [hidden]"))
        #expect(!all.output.contains("hidden presentation not listed"))
        let json = try JSONValue.parse(try await lab.cli(["list", "--json", "--all"]).output).arrayValue ?? []
        let byId = Dictionary(uniqueKeysWithValues: json.compactMap { item in item["presId"]?.intValue.map { ($0, item) } })
        #expect(byId[4]?["visibility"] == true && byId[4]?["lockout"] == false && byId[4]?["needConfirmation"] == false)
        #expect(byId[5]?["visibility"] == false)
        #expect(byId[6]?["lockout"] == true)
        #expect(try JSONValue.parse(try await lab.cli(["list", "--json"]).output).arrayValue?.count == 3)

        try await lab.withServedLibrary { _, served in
            let baseURL = served.baseURL
            let launcher = try await fetch("\(baseURL)/")
            #expect(launcher.status == 200)
            #expect(launcher.body.contains("data-presentation=\"4\"") && launcher.body.contains("data-presentation=\"6\""))
            #expect(!launcher.body.contains("data-presentation=\"5\""))

            let hidden = try await fetch("\(baseURL)/p/5/index.html")
            #expect(hidden.status == 200)
            #expect(hidden.body.contains("deck 5"))
            let blocked = try await fetch("\(baseURL)/p/6/index.html")
            #expect(blocked.status == 403)
            #expect(blocked.body.contains("“Deck 6” (presentation 6) is blocked by the content service"))
            #expect(try await fetch("\(baseURL)/p/6/mediafiles/film.mp4").status == 403)
            #expect(launcher.body.contains("data-presentation=\"10\""))
            #expect(try await fetch("\(baseURL)/p/10/index.html").body.contains("hand 10"))
            let notDownloaded = try await fetch("\(baseURL)/p/8/index.html")
            #expect(notDownloaded.status == 404)
            #expect(notDownloaded.body.contains("“Deck 8” (presentation 8) is not in this host"))
            #expect(notDownloaded.body.contains("the content service lists it, but it has not been downloaded"))
            #expect(notDownloaded.body.contains("storybridge sync --content 8"))
            let unknown = try await fetch("\(baseURL)/p/9/index.html")
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("Presentation 9 is not in this host"))

            let viewer = try await served.connectViewer(presentationId: 4)
            let openMissing = try await viewer.request("open", data: ["presId": 8])
            #expect(openMissing.errorCode == 404)
            #expect(
                openMissing.errorMessage
                    == "Presentation 8 “Deck 8” is not installed on this host: get it with `storybridge sync --content 8`")
            #expect(try await viewer.request("open", data: ["presId": 6]).errorCode == 403)
            #expect(try await viewer.request("open", data: ["presId": 5]).status == .success)
            await viewer.close()
        }
    }

    @Test("a sync that blocks a deck being shown reloads its viewer, whose next load gets the blocked page; unblocking brings it back")
    func lockoutArrivesWhileServing() async throws {
        let lab = try await syncedDeck4()

        try await lab.withServedLibrary { _, served in
            let baseURL = served.baseURL
            let viewer = try await served.connectViewer(presentationId: 4)
            #expect(try await fetch("\(baseURL)/p/4/index.html").status == 200)

            try await startServer(lab, [.init(id: 4, lockout: true)])
            let blocking = try await lab.cli(["sync"])
            #expect(blocking.status == 0, "\(blocking.errors)")
            #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(15)) != nil)
            #expect(try await fetch("\(baseURL)/p/4/index.html").status == 403)
            await viewer.close()

            try await startServer(lab, [.init(id: 4)])
            #expect(try await lab.cli(["sync"]).status == 0)
            let status = try await polledStatus(of: "\(baseURL)/p/4/index.html", until: 200)
            #expect(status == 200)
        }
    }

    @Test("a flag that changes nothing a viewer sees (needConfirmation) reaches serve without reloading the viewer")
    func confirmationArrivesWithoutReload() async throws {
        let lab = try await syncedDeck4()

        try await lab.withServedLibrary(logLevel: "info") { serve, served in
            let viewer = try await served.connectViewer(presentationId: 4)
            // What a metadata sync writes when the service turns on needConfirmation and nothing else
            // (the presentation object's revision moves, its package's does not).
            try await lab.clientLibrary().database.pool.write { db in
                try db.execute(sql: "UPDATE syncPresentation SET needConfirmation = 1 WHERE id = 4")
            }
            let log = await readUntil("asks on close", from: serve.errors, limit: .seconds(15))
            #expect(log.contains("library: presentation 4 is listed, asks on close"), "\(log)")
            let guid = viewer.makeGUID()
            viewer.send(BridgeRequest(command: "closePresentation", data: ["mode": 0], guid: guid))
            let ask = try #require(await viewer.nextEvent(named: "confirmClose", timeout: .seconds(10)))
            viewer.send(BridgeRequest(command: "storybridge.promptAnswer", data: ["prompt": ask.data["prompt"]!, "value": "cancel"]))
            #expect(await viewer.answer(to: guid)?.data == ["outcome": "cancelled"])
            #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(2)) == nil, "nothing the viewer shows changed")
            await viewer.close()
        }
    }
}
