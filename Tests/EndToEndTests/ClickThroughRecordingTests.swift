import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeServer
import StoryBridgeTesting
import Testing

@Suite("Recording a click-through in headless Chromium", .serialized)
struct ClickThroughRecordingTests {
    /// Two slides that ask the host for the map and the app at load; index.html has a button to the second.
    static func deck() -> VisualDeck {
        let loadCalls = """
            <script src="js/storyclm.js"></script>
            <script>
            StoryCLM.Map.GetMap(function (r) { document.body.setAttribute('data-map', JSON.stringify(r)); });
            StoryCLM.System.GetInfo(function (r) { document.body.setAttribute('data-app', 'yes'); });
            </script>
            """
        var index = VisualDeck.block("#444", links: ["second.html"], script: loadCalls)
        index = index.replacingOccurrences(
            of: "<div id=\"block\"></div>",
            with: "<div id=\"block\"></div><button id=\"next\" onclick=\"StoryCLM.Go('second.html', {from: 'index'})\">next</button>")
        var deck = VisualDeck(slides: [
            "index.html": index,
            "second.html": VisualDeck.block("#0a0", links: ["index.html"], script: loadCalls),
        ])
        deck.files["js/storyclm.js"] = SlideShotsTests.storyclmScript
        return deck
    }

    /// Runs the script in `file` as `storybridge test` does and returns its one result.
    func replay(_ file: URL) async throws -> ScriptReport.TestResult {
        let script = try TestScript.load(file)
        let runner = ScriptRunner(target: .inProcess, browserBinary: nil)
        var report = ScriptReport()
        await runner.run(script, into: &report)
        await runner.close()
        return try #require(report.results.first)
    }

    @Test("a recorded click-through replays green; a changed answer and a removed slide fail naming the step, the slide and the difference")
    func recordAndReplay() async throws {
        let folder = try Self.deck().write()
        let file = folder.appendingPathComponent("recorded.yaml")
        defer { try? FileManager.default.removeItem(at: folder) }
        let host = try await TestHost.start(presentationFolders: [folder])
        let recorder = ClickThroughRecorder(file: file, decks: [.init(path: folder.path, id: 1)])
        let following = Task { await recorder.follow(host.runtime.feed) }
        let page = try await SharedBrowser.shared.get().newPage()
        do {
            try await page.waitFor("true")
            var subscribed = false
            for _ in 0..<100 where !subscribed {
                subscribed = host.runtime.feed.subscriberCount > 0
                if !subscribed { try await Task.sleep(for: .milliseconds(10)) }
            }
            try await page.openSlide(on: host)
            try await page.waitFor("document.body.getAttribute('data-map') && document.body.getAttribute('data-app')")
            try await page.click("#next")
            try await page.waitForSlide("second.html")
            try await page.waitFor("document.body.getAttribute('data-map') && document.body.getAttribute('data-app')")
            // index: getMap, getAppInfo, go; load second.html; second: getMap, getAppInfo; and
            // storyclm.js's getNavigationData on each page: 8 steps. The recorder follows the feed
            // on its own task, so the last answer can reach it after the page has it: wait for all 8.
            try await page.waitFor("true")
            for _ in 0..<300 where recorder.counts.steps < 8 { try await Task.sleep(for: .milliseconds(10)) }
        } catch {
            await page.close()
            await host.stop()
            throw error
        }
        await page.close()
        following.cancel()
        await host.stop()
        try recorder.write()

        let script = try JSONValue.parse(String(contentsOf: file, encoding: .utf8))
        let steps = try #require(script["tests"]?.arrayValue?.first?["steps"]?.arrayValue)
        let labels = steps.map { $0["send"]?.stringValue ?? "load " + ($0["load"]?.stringValue ?? "?") }
        // What the slides sent, in order (storyclm.js also asks for the navigation data at load).
        let content = labels.filter { $0 != "getNavigationData" && $0 != "getCurrentSlideName" }
        #expect(content == ["getMap", "getAppInfo", "go", "load second.html", "getMap", "getAppInfo"])
        let go = try #require(steps.first { $0["send"] == .string("go") })
        #expect(go["data"]?["slideName"] == .string("second.html"))
        #expect(go["data"]?["data"] == ["from": "index"])
        // Answers are expectations; the app's volatile members are matched by type.
        let appInfo = try #require(steps.first { $0["send"] == .string("getAppInfo") })
        #expect(appInfo["expect"]?["status"] == .string("Success"))
        #expect(appInfo["expect"]?["dataLike"]?.objectValue != nil)

        let green = try await replay(file)
        #expect(green.failure == nil, "\(String(describing: green.failure))")

        // A changed answer: second.html now links to a new third slide, so the map differs.
        try VisualDeck.block("#00f").write(to: folder.appendingPathComponent("third.html"), atomically: true, encoding: .utf8)
        try VisualDeck.block("#0a0", links: ["index.html", "third.html"]).write(
            to: folder.appendingPathComponent("second.html"), atomically: true, encoding: .utf8)
        let changed = try await replay(file)
        let changedFailure = try #require(changed.failure)
        let firstMap = try #require(labels.firstIndex(of: "getMap"))
        #expect(changedFailure.step == firstMap + 1)
        #expect(changedFailure.label == "send getMap")
        #expect(changedFailure.detail.hasPrefix("on index.html: "))
        #expect(changedFailure.detail.contains("third.html"), "\(changedFailure.detail)")

        // A removed slide: the map says so at the first step that asks for it...
        try FileManager.default.removeItem(at: folder.appendingPathComponent("third.html"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("second.html"))
        let removed = try await replay(file)
        let removedFailure = try #require(removed.failure)
        #expect(removedFailure.label == "send getMap")
        #expect(removedFailure.detail.hasPrefix("on index.html: data.index.html is [], expected 1 elements like [\"second.html\"]"))
        // ...and without the map steps, loading it fails.
        let withoutMap = steps.filter { $0["send"] != .string("getMap") }
        var trimmed = try #require(script.objectValue)
        var test = try #require(script["tests"]?.arrayValue?.first?.objectValue)
        test["steps"] = .array(withoutMap)
        trimmed["tests"] = .array([.object(test)])
        try JSONValue.object(trimmed).jsonString().write(to: file, atomically: true, encoding: .utf8)
        let missing = try await replay(file)
        let missingFailure = try #require(missing.failure)
        #expect(missingFailure.label == "load second.html")
        #expect(
            missingFailure.detail
                == "on second.html: the host refused the page of second.html: Refused: 'second.html' is not a slide of that presentation")
    }

    @Test("the inspector's Record and Stop buttons record a click-through in another tab into a script that replays green")
    func inspectorButton() async throws {
        let folder = try Self.deck().write()
        let file = folder.appendingPathComponent("from-inspector.json")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration(port: 0)
        let control = ScriptRecordingControl(decks: [.init(path: folder.path, id: 1)], nextFile: { file })
        configuration.recording = control
        let host = try await TestHost.start(presentationFolders: [folder], server: configuration)
        let browser = try await SharedBrowser.shared.get()
        let inspector = try await browser.newPage()
        let slide = try await browser.newPage()
        try await withCleanup {
            try await inspector.navigate(to: host.inspectorURL)
            try await inspector.waitFor("!document.getElementById('recording').hidden")
            #expect(try await inspector.text("#record") == "Record")
            try await inspector.click("#record")
            try await inspector.waitFor("document.getElementById('record').textContent === 'Stop'")
            #expect(await control.status().recording)

            try await slide.openSlide(on: host)
            try await slide.waitFor("document.body.getAttribute('data-map') && document.body.getAttribute('data-app')")
            try await slide.click("#next")
            try await slide.waitForSlide("second.html")
            try await slide.waitFor("document.body.getAttribute('data-map') && document.body.getAttribute('data-app')")
            for _ in 0..<200 where await control.status().steps < 8 { try await Task.sleep(for: .milliseconds(10)) }

            try await inspector.click("#record")
            try await inspector.waitFor("document.getElementById('record').textContent === 'Record'")
            let state = try #require(try await inspector.text("#record-state"))
            #expect(state.hasPrefix("recorded 8 steps of 1 viewer(s) into \(file.path)"), "\(state)")
            // The download link hands over the script as written, as an attachment; without the token, nothing.
            #expect(try await inspector.evaluate("document.getElementById('record-download').hidden") == false)
            let download = try await inspector.evaluate(
                """
                fetch(document.getElementById('record-download').href).then(r => r.text().then(t =>
                  [r.status, r.headers.get('content-disposition'), t]))
                """)
            let parts = try #require(download.arrayValue)
            #expect(parts.count == 3 && parts[0] == 200)
            #expect(parts.count == 3 && parts[1].stringValue == "attachment; filename=\"from-inspector.json\"")
            let written = try String(contentsOf: file, encoding: .utf8)
            #expect(parts.count == 3 && parts[2].stringValue == written)
            let refused = try await inspector.evaluate(
                "fetch('/__storybridge/recording/script').then(r => r.status)")
            #expect(refused == 403)
        } cleanup: {
            await inspector.close()
            await slide.close()
            await host.stop()
        }
        #expect(await control.status().recording == false)
        let result = try await replay(file)
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        #expect(result.steps == 8)
    }

    @Test(
        "the recording endpoint: no script before a recording (404), a wrong body (400), a file that cannot be written (500, not recording); a host that does not record hides the button"
    )
    func recordingEndpointRefusals() async throws {
        let folder = try Self.deck().write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unwritable = folder.appendingPathComponent("no-such-folder/recording.json")
        var configuration = ServerConfiguration(port: 0)
        let control = ScriptRecordingControl(decks: [.init(path: folder.path, id: 1)], nextFile: { unwritable })
        configuration.recording = control
        let host = try await TestHost.start(presentationFolders: [folder], server: configuration)
        let plain = try await TestHost.start(presentationFolders: [folder])
        let page = try await SharedBrowser.shared.get().newPage()
        try await withCleanup {
            try await page.navigate(to: host.inspectorURL)
            try await page.waitFor("!document.getElementById('recording').hidden")
            let token = host.server.token
            func status(_ call: String) async throws -> JSONValue {
                try await page.evaluate("\(call).then(r => r.text().then(t => [r.status, t]))")
            }
            let url = "'/__storybridge/recording?token=\(token)'"
            let script = try #require(try await status("fetch('/__storybridge/recording/script?token=\(token)')").arrayValue)
            #expect(script.first == 404)
            let wrong = try #require(try await status("fetch(\(url), {method: 'POST', body: '{\"recording\": 1}'})").arrayValue)
            #expect(wrong.first == 400)
            #expect(wrong.last?.stringValue?.contains("{\"recording\": true}") == true)
            let failed = try #require(try await status("fetch(\(url), {method: 'POST', body: '{\"recording\": true}'})").arrayValue)
            #expect(failed.first == 500)
            #expect(failed.last?.stringValue?.contains("Cannot start recording") == true, "\(failed)")
            #expect(await control.status().recording == false)
            #expect(!FileManager.default.fileExists(atPath: unwritable.path))

            try await page.navigate(to: plain.inspectorURL)
            try await page.waitFor("document.getElementById('status').textContent === 'live'")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await page.evaluate("document.getElementById('recording').hidden") == true)
            let none = try #require(
                try await status("fetch('/__storybridge/recording?token=\(plain.server.token)')").arrayValue)
            #expect(none.first == 404)
        } cleanup: {
            await page.close()
            await host.stop()
            await plain.stop()
        }
    }

    @Test("volatile members (ids, times, UUIDs, dates) are matched by type; the rest by value")
    func volatileTemplate() throws {
        let answer: JSONValue = [
            "sessionId": "5F0E2C1A-0000-4000-8000-000000000001", "id": 7, "name": "Deck", "startedAt": 1_764_000_000_000,
            "slides": ["a.html"], "when": "2026-11-26T10:00:00Z", "count": 3,
        ]
        let template = VolatileFields.template(of: answer)
        #expect(template["sessionId"] == .string("$type:string"))
        #expect(template["id"] == .string("$type:number"))
        #expect(template["startedAt"] == .string("$type:number"))
        #expect(template["when"] == .string("$type:string"))
        #expect(template["name"] == .string("Deck"))
        #expect(template["count"] == .int(3))
        let expectation = JSONExpectation(like: template)
        var other = answer
        if case .object(var members) = other {
            members["sessionId"] = "another"
            members["id"] = 8
            other = .object(members)
        }
        #expect(expectation.mismatch(other, label: "data") == nil)
        if case .object(var members) = other {
            members["count"] = 4
            other = .object(members)
        }
        #expect(expectation.mismatch(other, label: "data") == "data.count is 4, expected 3")
        if case .object(var members) = other {
            members["count"] = 3
            members["id"] = "8"
            other = .object(members)
        }
        #expect(expectation.mismatch(other, label: "data") == "data.id is \"8\", expected any number")
    }
}
