import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The version and revision of the Story context in a served slide's script element.
private func servedStory(_ host: TestHost, presentationId: Int) async throws -> (version: String, revision: Int) {
    let html = String(decoding: try await httpGet(host.slideURL(presentationId: presentationId)).body, as: UTF8.self)
    let pattern = #/data-storybridge-story="([0-9a-f]{16})" data-storybridge-story-revision="([0-9]+)"/#
    let match = try #require(html.firstMatch(of: pattern), "no Story context element in the slide")
    return (String(match.1), try #require(Int(match.2)))
}

/// Sets `form.rating.value` as the app side, through the HTTP endpoint.
private func setRating(_ host: TestHost, _ value: Int) async throws {
    var request = URLRequest(
        url: URL(
            string: host.baseURL + "/__storybridge/context?presentation=1&keyPath=form.rating.value&token=" + host.server.token)!)
    request.httpMethod = "PUT"
    request.httpBody = Data(#"{"value": \#(value)}"#.utf8)
    let (_, response) = try await URLSession(configuration: .ephemeral).data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
}

/// How many `storyChange` events `viewer` received so far.
private func pushes(_ viewer: ViewerClient) -> Int {
    viewer.received.withLock { $0.filter { $0["Event"]?.stringValue == StoryContextService.changeEvent }.count }
}

@Suite("Story context: a page that missed a push catches up")
struct StoryContextCatchUpTests {
    @Test(
        "a viewer coming from another presentation, whose slide was served before a change and whose socket opens after it, is sent the current state once; a current page is sent nothing"
    )
    func catchUpOnConnect() async throws {
        try await withHost(folders: [storyContextFixture, demoFolder]) { host in
            // The tab shows presentation 2; it then loads a slide of presentation 1.
            let viewerId = UUID().uuidString
            let elsewhere = try await host.connectViewer(presentationId: 2, viewerId: viewerId)
            #expect(await elsewhere.nextEvent(named: "hello") != nil)
            let served = try await servedStory(host, presentationId: 1)

            // The change goes out while the viewer is still on presentation 2: no push reaches it.
            try await setRating(host, 5)
            #expect(await elsewhere.nextEvent(named: StoryContextService.changeEvent, timeout: .milliseconds(300)) == nil)
            await elsewhere.close()

            let page = try await host.connectViewer(presentationId: 1, viewerId: viewerId, storyVersion: served.version)
            let caughtUp = try #require(await page.nextEvent(named: StoryContextService.changeEvent, timeout: .seconds(10)))
            #expect(caughtUp.data["story"]?["form"]?["rating"]?["value"] == 5)
            #expect(caughtUp.data["version"]?.stringValue != served.version)
            #expect((caughtUp.data["revision"]?.intValue ?? 0) > served.revision)
            #expect(caughtUp.data["restore"] == nil)
            // Once: the answer to a later request comes with no second push before it.
            _ = try await page.request("getCurrentSlideName")
            #expect(pushes(page) == 1)
            await page.close()

            // A page served after the change is current: it gets no push on connecting.
            let current = try await servedStory(host, presentationId: 1)
            #expect(current.version == caughtUp.data["version"]?.stringValue)
            let fresh = try await host.connectViewer(presentationId: 1, storyVersion: current.version)
            #expect(await fresh.nextEvent(named: "hello") != nil)
            _ = try await fresh.request("getCurrentSlideName")
            #expect(pushes(fresh) == 0)

            // Pushes that follow are newer than what either page was served.
            try await setRating(host, 6)
            let pushed = try #require(await fresh.nextEvent(named: StoryContextService.changeEvent))
            #expect((pushed.data["revision"]?.intValue ?? 0) > (caughtUp.data["revision"]?.intValue ?? 0))
            #expect(pushed.data["story"]?["form"]?["rating"]?["value"] == 6)
            await fresh.close()
        }
    }

    @Test(
        "a push held back until a later change has been pushed still leaves the page with the newest state: the push with the higher revision carries every change committed before it"
    )
    func heldBackPushCarriesTheNewestState() async throws {
        try await withHost(folders: [storyContextFixture]) { host in
            let service = host.runtime.storyContext
            let page = try await host.connectViewer(presentationId: 1)
            #expect(await page.nextEvent(named: "hello") != nil)

            // The page's change is committed, and its push is held back (a slow task on a loaded
            // machine): the service's `apply` without its push.
            let presentation = try service.presentation(1)
            let pageChange = try await service.store.apply(
                [StoryChange(StoryAddress("form.rating.value"), .set(.int(4)))], by: .content, presentationId: 1,
                userId: service.identity.user.id, definition: try service.definition(for: presentation))
            #expect(pageChange.changed)

            // The app side's later change is committed and pushed while the page's push waits.
            let appChange = try await service.apply(
                [StoryChange(StoryAddress("questProgress.stage"), .set(.string("Done")))], by: .app, presentationId: 1)
            #expect(appChange.changed)
            let first = try #require(await page.nextEvent(named: StoryContextService.changeEvent))

            // The held-back push goes out last, with the higher revision.
            await service.publish(presentationId: 1)
            let last = try #require(await page.nextEvent(named: StoryContextService.changeEvent))
            let firstRevision = try #require(first.data["revision"]?.intValue)
            #expect(try #require(last.data["revision"]?.intValue) > firstRevision)

            // The page keeps the higher revision: it must hold both changes, the app side's
            // `Done` included, not the state the page's change had in hand.
            #expect(last.data["story"]?["questProgress"]?["stage"] == "Done")
            #expect(last.data["story"]?["form"]?["rating"]?["value"] == 4)
            await page.close()
        }
    }

    @Test("versions name states: equal texts, equal versions; 16 hex digits")
    func versions() {
        let a = StoryContextService.version(ofStoryText: #"{"form":{"a":1}}"#)
        #expect(a == StoryContextService.version(ofStoryText: #"{"form":{"a":1}}"#))
        #expect(a != StoryContextService.version(ofStoryText: #"{"form":{"a":1.0}}"#))
        #expect(a.count == 16 && a.allSatisfy(\.isHexDigit))
    }
}
