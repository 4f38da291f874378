import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The Story context fixture: a page using a proxy-based library of its own that speaks the
/// apps' protocol (`window._story`, `nativeStory`, `webkit.messageHandlers`, `_onStoryChange`).
let storyContextFolder = repositoryRoot.appendingPathComponent("Fixtures/presentations/story-context")

@Suite("Story context in headless Chromium", .serialized)
struct StoryContextBrowserTests {
    @Test("a set in one tab reaches the other; refusals; app-side changes; reload and restart keep the state")
    func twoTabs() async throws {
        let data = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("sb-story-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: data.root) }
        var host = try await TestHost.start(presentationFolders: [storyContextFolder], dataDirectory: data)
        let browser = try await SharedBrowser.shared.get()
        let first = try await browser.newPage()
        let second = try await browser.newPage()
        try await withCleanup {
            for page in [first, second] {
                try await page.navigate(to: host.slideURL())
                try await page.waitFor("window.__storybridge && window.__storybridge.state.connected")
            }
            // Content read the host's context as its first script ran.
            let seen = try JSONValue.parse(try #require(try await first.evaluate("window.seenAtLoad").stringValue))
            #expect(seen["form"]?["rating"]?["value"] == 3)
            #expect(seen["presentation"]?["id"] == 1)
            // The state's version the socket sent as it opened is the slide's (§9.5), though the
            // socket opens before the Story context's element is parsed: the catch-up needs it.
            let sent = try await first.evaluate("window.__storybridge.story().version")
            #expect(sent.stringValue?.count == 16)
            let served = "document.querySelector('script[data-storybridge-story]').getAttribute('data-storybridge-story')"
            #expect(try await first.evaluate(served) == sent)

            // A set in the first tab (through the proxy, reported on both channels) reaches the second.
            try await first.evaluate("story.form.rating.value = 4.5; story.form.count = 2; true")
            try await second.waitFor("story.form.rating.value === 4.5 && story.form.count === 2")
            #expect(try await second.evaluate("document.getElementById('rating').textContent") == "4.5")
            let rating = try await host.runtime.storyContext.value(at: StoryAddress("form.rating.value"), presentationId: 1)
            #expect(rating == .double(4.5))
            let count = try await host.runtime.storyContext.value(at: StoryAddress("form.count"), presentationId: 1)
            #expect(count == .int(2))
            // The library reported each change on both channels; the host heard each change once.
            let reported = host.runtime.feed.recentEntries.filter { $0["command"] == "storybridge.storyChanges" }
                .flatMap { $0["data"]?["changes"]?.arrayValue ?? [] }
            #expect(reported.map { $0["keyPath"]?.stringValue ?? "" } == ["rating.value", "count"])

            // The proxy refuses a read-only object; calling nativeStory directly does not get past the host.
            #expect(
                try await first.evaluate("(function(){try{story.questProgress.stage='x';return 'written'}catch(e){return 'refused'}})()")
                    == "refused")
            let changesBefore = try #require(try await first.evaluate("window.storyChanges").intValue)
            try await first.evaluate("window.nativeStory.setStoryProp('questProgress', 'stage', 'string', 'Hacked'); true")
            try await first.waitFor("window.storyChanges > \(changesBefore)")
            #expect(try await first.evaluate("story.questProgress.stage") == "Intro")
            let stage = try await host.runtime.storyContext.value(at: StoryAddress("questProgress.stage"), presentationId: 1)
            #expect(stage == "Intro")

            // A delete from content; a change from the app side reaches both tabs.
            try await first.evaluate("story.removeStoryProp('form.notes.text'); true")
            try await second.waitFor("story.form.notes.text === undefined")
            _ = try await host.runtime.storyContext.apply(
                [StoryChange(try StoryAddress("questProgress.stage"), .set("Done"))], by: .app, presentationId: 1)
            for page in [first, second] {
                try await page.waitFor("document.getElementById('stage').textContent === 'Done'")
            }

            // A reload reads the kept state before content runs.
            try await second.navigate(to: host.slideURL())
            try await second.waitFor("window.__storybridge && window.__storybridge.state.connected")
            let reloaded = try JSONValue.parse(try #require(try await second.evaluate("window.seenAtLoad").stringValue))
            #expect(reloaded["form"]?["rating"]?["value"] == 4.5)
            #expect(reloaded["form"]?["notes"] == .emptyObject)

            // So does a restarted host over the same data folder.
            await host.stop()
            host = try await TestHost.start(presentationFolders: [storyContextFolder], dataDirectory: data)
            try await first.navigate(to: host.slideURL())
            try await first.waitFor("window.__storybridge && window.__storybridge.state.connected")
            #expect(try await first.evaluate("story.form.rating.value") == 4.5)
            #expect(try await first.evaluate("story.form.count") == 2)
            #expect(try await first.evaluate("story.questProgress.stage") == "Done")
        } cleanup: {
            await first.close()
            await second.close()
            await host.stop()
        }
    }

    @Test("the inspector shows the live context of the open presentation, leaf by leaf with exact types")
    func inspector() async throws {
        try await withBrowser(folders: [storyContextFolder]) { host, page in
            let inspector = try await SharedBrowser.shared.get().newPage()
            try await withCleanup {
                try await page.navigate(to: host.slideURL())
                try await page.waitFor("window.__storybridge && window.__storybridge.state.connected")
                try await inspector.navigate(to: host.inspectorURL)
                try await inspector.waitFor("window.__inspector && window.__inspector.ready")
                let row = { (path: String) in
                    "(function(){var r=document.querySelector('#story-contexts tr[data-path=\"\(path)\"]');return r?r.textContent:null;})()"
                }
                let start = try await inspector.waitFor(row("form.rating.value"))
                #expect(start.stringValue == "form.rating.valueinteger3writes")
                #expect(try await inspector.waitFor(row("presentation.id")).stringValue == "presentation.idinteger1reads")
                // A change from the page and one from the app side show up without a reload.
                try await page.evaluate("story.form.rating.value = 4.5; true")
                try await inspector.waitFor("(\(row("form.rating.value"))) === 'form.rating.valuefloat4.5writes'")
                _ = try await host.runtime.storyContext.apply(
                    [StoryChange(try StoryAddress("questProgress.stage"), .set("Done"))], by: .app, presentationId: 1)
                try await inspector.waitFor("(\(row("questProgress.stage"))) === 'questProgress.stagestring\"Done\"reads'")
            } cleanup: {
                await inspector.close()
            }
        }
    }
}
