import AsyncHTTPClient
import Foundation
import NIOCore
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting
import Testing

@Suite("A running serve of the library follows sync", .serialized)
struct ServePickupTests {
    @Test(
        "serve picks up a newly synced presentation and an update without a restart; the updated deck's viewer is not reloaded mid-slide, its next slide is the new revision"
    )
    func servePicksUpSync() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 4, title: "four v1") }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)

        try await lab.withServedLibrary { _, served in
            let baseURL = served.baseURL
            let viewer = try await served.connectViewer(presentationId: 4)
            #expect(try await viewer.request("getPresentations").data == [["name": "Deck 4", "presId": 4]])

            try lab.publish(id: 4, title: "four v2")
            try lab.publish(id: 9, title: "nine v1")
            let sync = try await lab.cli(["sync", "--content"])
            #expect(sync.status == 0, "\(sync.errors)")
            // The host looks at the catalog once a second, so deck 4's update can be picked up one
            // look before deck 9's install: give the next look its time.
            let both: JSONValue = [["name": "Deck 4", "presId": 4], ["name": "Deck 9", "presId": 9]]
            let listed = try await polledPresentations(of: viewer, until: both)
            #expect(listed == both)
            // The viewer on deck 4 is not reloaded mid-slide: its next slide change loads v2.
            #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(2)) == nil)
            let (status, body) = try await fetch("\(baseURL)/p/4/index.html")
            #expect(status == 200)
            #expect(body.contains("four v2"))
            await viewer.close()
        }
    }

    @Test(
        "A kiosk's first boot: serve of a synced library with nothing downloaded starts, shows a waiting page, then serves what sync installs"
    )
    func serveStartsEmpty() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 4, title: "four v1") }
        #expect(try await lab.cli(["sync"]).status == 0)
        #expect(try lab.clientLibrary().entries().isEmpty)

        try await lab.withServe(["--port", "0", "--log-level", "warning", "--no-watch"]) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            #expect(text.contains("empty for now"), "\(text)")
            let match = try #require(text.firstMatch(of: /Inspector: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/inspector/))
            let baseURL = String(match.1)
            let (status, page) = try await fetch("\(baseURL)/")
            #expect(status == 200)
            #expect(page.contains("id=\"empty-library\""))
            #expect(page.contains("http-equiv=\"refresh\""))
            #expect(try await fetch("\(baseURL)/p/4/index.html").0 == 404)

            let sync = try await lab.cli(["sync", "--content"])
            #expect(sync.status == 0, "\(sync.errors)")
            let deadline = ContinuousClock.now + .seconds(15)
            var served = (0, "")
            while ContinuousClock.now < deadline {
                served = try await fetch("\(baseURL)/p/4/index.html")
                if served.0 == 200 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(served.0 == 200)
            #expect(served.1.contains("four v1"))
        }
    }

    @Test("a deck withdrawn by sync (gone from the service) leaves a running serve's list and is no longer served; its files stay")
    func withdrawnLeavesServe() async throws {
        let lab = try await SyncLab.loggedIn { for id in 4...6 { try $0.publish(id: id, title: "deck \(id)") } }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)

        try await lab.withServedLibrary { _, served in
            let baseURL = served.baseURL
            let viewer = try await served.connectViewer(presentationId: 4)
            #expect(try await fetch("\(baseURL)/p/6/index.html").0 == 200)

            try lab.serverLibrary.remove(id: 6)
            let sync = try await lab.cli(["sync"])
            #expect(sync.status == 0, "\(sync.errors)")
            #expect(sync.output.contains("1 withdrawn"))
            let remaining: JSONValue = [["name": "Deck 4", "presId": 4], ["name": "Deck 5", "presId": 5]]
            let listed = try await polledPresentations(of: viewer, until: remaining)
            #expect(listed == remaining)
            #expect(try await fetch("\(baseURL)/p/6/index.html").0 == 404)
            #expect(try lab.clientLibrary().entry(id: 6) != nil)
            await viewer.close()
        }
    }

    @Test("serve of an empty library that is not logged in for sync is refused with a hint")
    func emptyWithoutSyncRefused() async throws {
        let lab = try SyncLab()
        let result = try await lab.cli(["serve", "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("is empty"), "\(result.errors)")
        #expect(result.errors.contains("storybridge sync --content"))
    }
}

/// The address and inspector token a running `serve` printed.
struct ServedLibrary {
    let baseURL: String
    let token: String

    /// A viewer on the first slide of `presentationId`.
    func connectViewer(presentationId: Int) async throws -> ViewerClient {
        try await ViewerClient.connect(baseURL: baseURL, token: token, presentationId: presentationId, slide: "index.html")
    }
}

extension SyncLab {
    /// Runs `serve` of the client library on a free port, without the file watcher, logging at
    /// `logLevel`, while `body` runs with it and what it printed once ready.
    func withServedLibrary(
        logLevel: String = "warning",
        _ body: ((process: LaunchedProcess, output: Pipe, errors: Pipe), ServedLibrary) async throws -> Void
    ) async throws {
        try await withServe(["--port", "0", "--log-level", logLevel, "--no-watch"]) { serve in
            let text = await readUntil("Ctrl-C", from: serve.output, limit: .seconds(60))
            let match = try #require(
                text.firstMatch(of: /Inspector: (http:\/\/127\.0\.0\.1:\d+)\/__storybridge\/inspector\?token=([0-9a-f]+)/))
            try await body(serve, ServedLibrary(baseURL: String(match.1), token: String(match.2)))
        }
    }
}
