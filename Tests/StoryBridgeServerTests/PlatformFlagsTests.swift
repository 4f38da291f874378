import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// The content service's flags as a running host honours them: hidden decks are off the launcher
/// but open by link, blocked decks are refused everywhere with a page or an answer that says so,
/// decks that are not installed get a page naming them, and `needConfirmation` decides whether a
/// mode-0 close asks. (How the flags come from `storybridge sync` into the library is
/// `PlatformFlagsSyncTests`.)
@Suite("Platform presentation flags in a running host")
struct PlatformFlagsTests {
    /// A host with the demo (1) and two small decks (2, 3), with `flags` set on some of them as
    /// the library holds them after a sync.
    func withDecks(
        _ flags: [Int: PresentationFlags], policy: ViewerPolicy = ViewerPolicy(closeDecision: .ask, restoreDecision: .new),
        _ body: (TestHost) async throws -> Void
    ) async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder, try deckFolder("Two"), try deckFolder("Three")],
            catalogs: [.init(id: 1, name: "Demo"), .init(id: 2, name: "Two"), .init(id: 3, name: "Three")], policy: policy
        ) { host in
            for (id, flags) in flags {
                guard var presentation = host.library.presentation(id: id) else { continue }
                presentation.flags = flags
                host.library.add(presentation)
            }
        }
        try await host.use { try await body($0) }
    }

    func deckFolder(_ title: String) throws -> URL {
        try makePresentationFolder([
            "index.html": "<html><head><title>\(title)</title></head><body><h1>\(title)</h1></body></html>",
            "img/logo.svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        ])
    }

    func page(_ url: String) async throws -> (status: Int, type: String, html: String) {
        let answer = try await httpGet(url)
        return (answer.status, answer.headers["content-type"] ?? "", String(decoding: answer.body, as: UTF8.self))
    }

    @Test("hidden decks are left off the launcher and the library page but open by link; / opens the only listed deck")
    func hiddenDecks() async throws {
        try await withDecks([2: PresentationFlags(isListed: false)]) { host in
            let launcher = try await page(host.baseURL + "/")
            #expect(launcher.status == 200)
            #expect(launcher.html.contains("data-presentation=\"1\""))
            #expect(launcher.html.contains("data-presentation=\"3\""))
            #expect(!launcher.html.contains("data-presentation=\"2\""))
            let library = try await page(host.baseURL + "/__storybridge/library")
            #expect(library.html.contains("data-presentation=\"3\"") && !library.html.contains("data-presentation=\"2\""))
            let byLink = try await page(host.baseURL + "/p/2/index.html")
            #expect(byLink.status == 200)
            #expect(byLink.html.contains("<h1>Two</h1>"))
            #expect(try await httpGet(host.baseURL + "/p/2/img/logo.svg").status == 200)
        }
        try await withDecks([2: PresentationFlags(isListed: false), 3: PresentationFlags(isListed: false)]) { host in
            let root = try await httpGet(host.baseURL + "/")
            #expect(root.status == 302 || root.status == 303 || root.status == 307)
            #expect(root.headers["location"] == "/p/1/index.html")
        }
        try await withDecks([
            1: PresentationFlags(isListed: false), 2: PresentationFlags(isListed: false), 3: PresentationFlags(isListed: false),
        ]) { host in
            let launcher = try await page(host.baseURL + "/")
            #expect(launcher.status == 200)
            #expect(launcher.html.contains("id=\"all-hidden\""))
            #expect(launcher.html.contains("3 presentations"))
            #expect(!launcher.html.contains("http-equiv=\"refresh\""), "an all-hidden library is not an empty one")
        }
    }

    @Test("a blocked deck answers 403 with a page that says so, for its slides, its files and its start; its socket and open are refused")
    func blockedDeck() async throws {
        try await withDecks([2: PresentationFlags(isLockedOut: true)]) { host in
            for path in ["/p/2/index.html", "/p/2/img/logo.svg", "/p/2", "/p/2/nothing.png"] {
                let blocked = try await page(host.baseURL + path)
                #expect(blocked.status == 403, "\(path)")
                #expect(blocked.type.hasPrefix("text/html"), "\(path)")
                #expect(blocked.html.contains("id=\"blocked-presentation\""), "\(path)")
                #expect(blocked.html.contains("“Two” (presentation 2) is blocked by the content service"), "\(path)")
                #expect(!blocked.html.contains("<h1>Two</h1>"), "\(path)")
            }
            let launcher = try await page(host.baseURL + "/")
            #expect(launcher.html.contains("data-presentation=\"2\""), "a blocked deck stays listed, marked")
            #expect(launcher.html.contains("<strong class=\"blocked\">blocked by the content service</strong>"))

            let viewer = try await host.connectViewer(presentationId: 1)
            let open = try await viewer.request("open", data: ["presId": 2])
            #expect(open.errorCode == 403)
            #expect(open.errorMessage.contains("blocked by the content service"))
            #expect(open.errorMessage.contains("“Two” (presentation 2)"))
            #expect(try await viewer.request("getCurrentSlideName").data == ["slide": "index.html"])
            await viewer.close()

            let url =
                host.baseURL.replacingOccurrences(of: "http://", with: "ws://")
                + "/__storybridge/ws?viewer=v&presentation=2&slide=index.html&token=\(host.server.token)"
            let refused = try await WebSocketTextConnection.refused(url: url, headers: [:])
            #expect(await refused?.receive(timeout: .milliseconds(10)) == nil)
            #expect(refused?.serverCloseFrame?.closeCode == .unknown(4403))
            #expect(refused?.serverCloseFrame?.reason?.contains("blocked by the content service") == true)
        }
    }

    @Test("a deck that is not installed gets a 404 page naming it with the command that gets it; open answers the same")
    func missingDeck() async throws {
        try await withDecks([:]) { host in
            for path in ["/p/12/index.html", "/p/12", "/p/12/img/logo.svg"] {
                let missing = try await page(host.baseURL + path)
                #expect(missing.status == 404, "\(path)")
                #expect(missing.type.hasPrefix("text/html"), "\(path)")
                #expect(missing.html.contains("id=\"missing-presentation\" data-presentation=\"12\""), "\(path)")
                #expect(missing.html.contains("Presentation 12 is not in this host"), "\(path)")
                #expect(missing.html.contains("<code>storybridge sync --content 12</code>"), "\(path)")
            }
            let viewer = try await host.connectViewer(presentationId: 1)
            let open = try await viewer.request("open", data: ["presId": 12])
            #expect(open.errorCode == 404)
            #expect(open.errorMessage.hasPrefix("Presentation 12 is not installed on this host"))
            #expect(open.errorMessage.contains("storybridge sync --content 12"))
            await viewer.close()
        }
    }

    @Test("mode 0 asks only for a needConfirmation deck, and closes and saves any other; --close-answer answers both")
    func closeFollowsNeedConfirmation() async throws {
        try await withDecks([2: PresentationFlags(needsConfirmation: true)]) { host in
            let plain = try await host.connectViewer(presentationId: 1)
            #expect(try await plain.request("closePresentation", data: ["mode": 0]).data == ["outcome": "saved"])
            #expect(try #require(await plain.nextEvent(named: "closed")).data["outcome"] == "saved")
            await plain.close()

            let asking = try await host.connectViewer(presentationId: 2)
            let guid = asking.makeGUID()
            asking.send(BridgeRequest(command: "closePresentation", data: ["mode": 0], guid: guid))
            let ask = try #require(await asking.nextEvent(named: "confirmClose"))
            let prompt = try #require(ask.data["prompt"]?.stringValue)
            asking.send(BridgeRequest(command: "storybridge.promptAnswer", data: ["prompt": .string(prompt), "value": "cancel"]))
            #expect(await asking.answer(to: guid)?.data == ["outcome": "cancelled"])
            #expect(try await asking.request("getCurrentSlideName").data == ["slide": "index.html"])
            // Modes 1 and 2 never ask, flag or not.
            #expect(try await asking.request("closePresentation", data: ["mode": 2]).data == ["outcome": "discarded"])
            await asking.close()
        }
        try await withDecks(
            [2: PresentationFlags(needsConfirmation: true)], policy: ViewerPolicy(closeDecision: .discard, restoreDecision: .new)
        ) { host in
            for id in [1, 2] {
                let viewer = try await host.connectViewer(presentationId: id)
                #expect(try await viewer.request("closePresentation", data: ["mode": 0]).data == ["outcome": "discarded"], "\(id)")
                await viewer.close()
            }
        }
    }
}
