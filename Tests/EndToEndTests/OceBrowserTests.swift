import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The fixture delivery (``OceDeliveryFixture``), unpacked as `serve` unpacks a folder of zips.
private func unpackedOceDelivery() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-oce-\(UUID().uuidString)")
    try OceDeliveryFixture.writeZips(in: root.appendingPathComponent("zips"))
    let unpacked = root.appendingPathComponent("deck")
    try DeliveryUnpacking.unpack(folder: root.appendingPathComponent("zips"), to: unpacked)
    return unpacked
}

extension BrowserPage {
    /// A horizontal stroke of the pointer from (`x`, `y`) by `dx` pixels.
    fileprivate func swipe(x: Int, y: Int, dx: Int) async throws {
        try await evaluate(
            """
            (function () {
              function at(type, cx) {
                document.body.dispatchEvent(new PointerEvent(type, { bubbles: true, isPrimary: true, clientX: cx, clientY: \(y) }));
              }
              at('pointerdown', \(x)); at('pointerup', \(x + dx));
              return true;
            })()
            """)
    }

    /// Waits until the adapter has had `count` answers from the host.
    fileprivate func waitForAnswers(_ count: Int) async throws {
        try await waitFor("window.__storybridgeOce.stats.answered >= \(count)")
    }
}

@Suite("IQVIA OCE content in headless Chromium", .serialized)
struct OceBrowserTests {
    @Test(
        "sequences and slides follow the presentation's order through nativeCall, the postMessage variant and swipes; no-swipe regions hold"
    )
    func navigation() async throws {
        try await withBrowser(folders: [try unpackedOceDelivery()]) { host, page in
            // The presentation opens at the first slide of oce.json's first sequence; the slide
            // hears viewappearing once it shows; the client's own webkit handlers are still there.
            try await page.navigate(to: host.baseURL + "/p/1")
            try await page.waitForSlide("Intro/01_welcome.html")
            try await page.waitFor("window.events.length === 1 && window.events[0] === 'viewappearing'")
            #expect(try await page.evaluate("getComputedStyle(document.body).color") == "rgb(4, 5, 6)")
            #expect(
                try await page.evaluate(
                    "typeof window.webkit.messageHandlers.setStoryProp.postMessage + ' ' + typeof webkit.messageHandlers.nativeCall.postMessage"
                ) == "function function")
            #expect(try await page.evaluate("fetch('/p/1/Intro/01_thumbnail.jpg').then(function (r) { return r.status; })") == 200)

            // gotoSlide(null, slide): a slide of the sequence shown.
            try await page.evaluate("CLMPlayer.gotoSlide(null, '02_overview.html', 'fade'); true")
            try await page.waitForSlide("Intro/02_overview.html")
            // goNextSequence: oce.json's order (Intro, Safety, Efficacy), not name order.
            try await page.evaluate("CLMPlayer.goNextSequence(); true")
            try await page.waitForSlide("Safety/01_safety.html")
            // A sequence id mapped by oce.json, no slide: its first slide.
            try await page.evaluate("CLMPlayer.gotoSlide('SEQ-EFF', null, null); true")
            try await page.waitForSlide("Efficacy/01_data.html")
            // Slides in numeric order (02 before 10); a slide named without its number and extension.
            try await page.evaluate("CLMPlayer.gotoSlide('Efficacy.zip', 'summary', null); true")
            try await page.waitForSlide("Efficacy/10_summary.html")
            try await page.evaluate("CLMPlayer.goPreviousSequence(); true")
            try await page.waitForSlide("Safety/01_safety.html")
            // The variant: parent.postMessage, top-level the page's own window.
            try await page.evaluate("window.wireVariant = 'postMessage'; CLMPlayer.goPreviousSequence(); true")
            try await page.waitForSlide("Intro/01_welcome.html")
            #expect(try await page.evaluate("location.protocol") == "http:")

            // A swipe to the left: the next slide in the presentation's order.
            try await page.swipe(x: 600, y: 300, dx: -200)
            try await page.waitForSlide("Intro/02_overview.html")
            // A swipe that starts in a no-swipe region does not navigate; once the region is gone it does.
            try await page.evaluate("CLMPlayer.defineNoSwipeRegion('chart', 100, 100, 400, 300); true")
            try await page.waitForAnswers(1)
            try await page.swipe(x: 200, y: 200, dx: 250)
            #expect(try await page.evaluate("window.__storybridgeOce.stats.ignoredSwipes") == 1)
            // A call the host answers after the ignored swipe: the slide is still shown.
            try await page.evaluate("CLMPlayer.gotoSlide('nowhere', null, null); true")
            try await page.waitForAnswers(2)
            #expect(try await page.evaluate("window.__storybridge.slide") == "Intro/02_overview.html")
            #expect(try await page.evaluate("window.__storybridgeOce.refusals[0].indexOf(\"no sequence 'nowhere'\") >= 0") == true)
            try await page.evaluate("CLMPlayer.destroyNoSwipeRegion('chart'); true")
            try await page.waitForAnswers(3)
            try await page.swipe(x: 200, y: 200, dx: 250)
            try await page.waitForSlide("Intro/01_welcome.html")
        }
    }

    @Test(
        "page tracking, addAction, saveState and alert are kept as analytics rows and uploaded with the session; unknown functions are refused"
    )
    func analytics() async throws {
        try await withBrowser(folders: [try unpackedOceDelivery()]) { host, page in
            try await page.openSlide("Intro/01_welcome.html", on: host)
            try await page.evaluate(
                """
                (function () {
                  CLMPlayer.startTrackingPage('welcome-page');
                  CLMPlayer.addAction('Opened chart', 12, '2026-11-29T02:00:00Z', '2026-11-29T02:00:12Z', 'P-1', 'welcome-page',
                    'MSG-1', 1, 'chart', 'Positive', 'none', 'a', 'b', null, null, null, ['asset-1']);
                  CLMPlayer.saveState(JSON.stringify({ step: 2, answers: ['yes'] }));
                  CLMPlayer.alert('Saved!');
                  CLMPlayer.updateFeedback('good');
                  return true;
                })()
                """)
            try await page.waitForAnswers(5)
            #expect(try await page.evaluate("document.querySelector('[data-storybridge-oce-alert]').textContent") == "Saved!")
            #expect(
                try await page.evaluate("window.__storybridgeOce.refusals.length === 1 && window.__storybridgeOce.refusals[0]")
                    .stringValue?.hasPrefix("CLMPlayer.updateFeedback: not carried out") == true)
            try await Task.sleep(for: .milliseconds(300))
            try await page.evaluate("CLMPlayer.stopTrackingPage(); CLMPlayer.gotoSlide(null, '02_overview.html', null); true")
            try await page.waitForSlide("Intro/02_overview.html")
            // A later state replaces the earlier one (one per presentation and viewer).
            try await page.evaluate("window.wireVariant = 'postMessage'; CLMPlayer.saveState('final'); true")
            try await page.waitForAnswers(1)

            let records = try await CRMStore(database: host.runtime.database, clock: host.runtime.clock).savedRecords(presentationId: 1)
            let tracked = try #require(records.first { $0.object == OceModule.trackedPageObject })
            #expect(tracked.fields["pageid"] == "welcome-page" && tracked.fields["slide"] == "Intro/01_welcome.html")
            #expect((tracked.fields["duration"]?.doubleValue ?? 0) >= 0.25)
            #expect(tracked.fields["stopped"]?.stringValue != nil)
            let action = try #require(records.first { $0.object == OceModule.actionObject })
            #expect(action.fields["action__c"] == "Opened chart" && action.fields["detailedtime__c"] == 12)
            #expect(
                action.fields["pageid__c"] == "welcome-page" && action.fields["extra2__c"] == "b" && action.fields["assets"] == ["asset-1"])
            let sessionId = try #require(action.sessionId)
            let state = try #require(
                try await OceStateStore(database: host.runtime.database, clock: host.runtime.clock).states(sessionId: sessionId).first)
            #expect(state.json["state"] == "final")

            // Slide views with their times, as for every dialect.
            try await page.evaluate("CLMPlayer.goNextSequence(); true")
            try await page.waitForSlide("Safety/01_safety.html")
            // The view of the slide left is written once the next page has connected, after the page
            // already shows it: read until it is there.
            let views = try await readHostRecords {
                try await host.runtime.analytics.slideViews(sessionId: sessionId).map(\.slideName)
            } until: {
                $0.count >= 2
            }
            #expect(views.starts(with: ["Intro/01_welcome.html", "Intro/02_overview.html"]))

            // Uploaded with the saved session: the tracked page and the action one record each, the state once.
            try await host.runtime.analytics.setState(.saved, sessionId: sessionId)
            let queued = try await host.runtime.analytics.outbox(status: .queued)
            #expect(queued.filter { $0.eventId == UploadEventId.crmRecord }.count == 2)
            let uploadedState = try #require(queued.first { $0.eventId == UploadEventId.oceState })
            #expect(try JSONValue.parse(uploadedState.body)["state"] == "final")
            #expect(queued.contains { $0.eventId == UploadEventId.slide })
        }
    }
}

@Suite("OCE map in headless Chromium", .serialized)
struct OceMapTests {
    @Test("the chrome's map starts at the entry slide, lists every slide in order with its thumbnail, and a choice navigates")
    func mapWithThumbnails() async throws {
        try await withBrowser(folders: [try unpackedOceDelivery()]) { host, page in
            try await page.openSlide("Intro/02_overview.html", on: host)
            try await page.clickChrome("map")
            try await page.waitForChrome("root.querySelector('[data-overlay=map] a[data-slide=\"Efficacy/10_summary.html\"]')")
            let listed = try await page.inChrome(
                "Array.prototype.map.call(root.querySelectorAll('[data-overlay=map] a[data-slide]'), function (a) { return a.dataset.slide; })"
            )
            #expect(listed == .array(OceDeliveryFixture.order.map(JSONValue.string)))
            #expect(try await page.inChrome("root.querySelector('[data-overlay=map] a.current').dataset.slide") == "Intro/02_overview.html")
            // Every slide's NN_thumbnail.jpg, served from the sequence's folder.
            let pictures = try await page.inChrome(
                "Array.prototype.map.call(root.querySelectorAll('[data-overlay=map] img[data-thumbnail]'), function (i) { return new URL(i.src).pathname; })"
            )
            #expect(
                pictures == [
                    "/p/1/Intro/01_thumbnail.jpg", "/p/1/Intro/02_thumbnail.jpg", "/p/1/Safety/01_thumbnail.jpg",
                    "/p/1/Efficacy/01_thumbnail.jpg", "/p/1/Efficacy/02_thumbnail.jpg", "/p/1/Efficacy/10_thumbnail.jpg",
                ])
            #expect(try await page.evaluate("fetch('/p/1/Safety/01_thumbnail.jpg').then(function (r) { return r.status; })") == 200)
            try await page.evaluate(
                "window.__storybridge.chrome.root.querySelector('[data-overlay=map] a[data-slide=\"Safety/01_safety.html\"]').click(); true"
            )
            try await page.waitForSlide("Safety/01_safety.html")
        }
    }

    @Test(
        "gotoSlide with an oceasset_ id opens the sequence's PDF in the media overlay, its close records a media view; an unknown asset is refused by name"
    )
    func assetOverlay() async throws {
        try await withBrowser(folders: [try unpackedOceDelivery()]) { host, page in
            try await page.openSlide("Intro/01_welcome.html", on: host)
            // As the public content template's button does: the asset's name in place of a sequence id.
            try await page.evaluate("CLMPlayer.gotoSlide('oceasset_brandpi', null, null); true")
            try await page.waitForChrome("root.querySelector('[data-overlay=media] iframe.media')")
            #expect(
                try await page.inChrome("new URL(root.querySelector('[data-overlay=media] iframe.media').src).pathname")
                    == "/p/1/Intro/oceasset_brandpi.pdf")
            #expect(try await page.inChrome("root.querySelector('[data-overlay=media]').dataset.file") == "Intro/oceasset_brandpi.pdf")
            // The page stays where it was, and the file is served as the delivery holds it.
            #expect(try await page.evaluate("window.__storybridge.slide") == "Intro/01_welcome.html")
            #expect(
                try await page.evaluate("fetch('/p/1/Intro/oceasset_brandpi.pdf').then(function (r) { return r.text(); })")
                    == .string(OceDeliveryFixture.assetPDF))
            try await page.clickChrome("close-media")
            let views = try await readHostRecords {
                var names: [String] = []
                for session in try await host.runtime.analytics.sessions(presentationId: 1) {
                    names += try await host.runtime.analytics.mediaViews(sessionId: session.id).map(\.fileName)
                }
                return names
            } until: {
                !$0.isEmpty
            }
            #expect(views == ["Intro/oceasset_brandpi.pdf"])

            // An asset the delivery lacks: refused, the reason on the page's console, no overlay.
            try await page.evaluate("CLMPlayer.gotoSlide('oceasset_missing', null, null); true")
            try await page.waitFor("window.__storybridgeOce.refusals.length === 1")
            #expect(
                try await page.evaluate("window.__storybridgeOce.refusals[0]").stringValue?
                    .hasPrefix("CLMPlayer.gotoSlide: no asset 'oceasset_missing'") == true)
            #expect(try await page.inChrome("root.querySelector('[data-overlay=media]') === null") == true)
        }
    }
}

@Suite("OCE player buttons and refusals in the inspector", .serialized)
struct OceInspectorTests {
    @Test(
        "the inspector's viewer card presses the player's buttons, which content hears through executeEvent; the endpoint refuses what it cannot pass on; a refused CLMPlayer call is a refused row"
    )
    func playerButtons() async throws {
        let host = try await TestHost.start(presentationFolders: [try unpackedOceDelivery(), demoFolder])
        let browser = try await SharedBrowser.shared.get()
        let slide = try await browser.newPage()
        let storyclm = try await browser.newPage()
        let inspector = try await browser.newPage()
        try await withCleanup {
            try await slide.openSlide("Intro/01_welcome.html", on: host)
            try await slide.evaluate(
                """
                ['returntocallbuttonpress', 'cancelbuttonpress', 'pausebuttonpress'].forEach(function (name) {
                  CLMPlayer.registerEventListener(name, function () { window.events.push(name); });
                });
                CLMPlayer.updateFeedback('good');
                true
                """)
            try await slide.waitForAnswers(1)
            let viewer = try #require(try await slide.evaluate("window.__storybridge.viewerId").stringValue)
            try await storyclm.navigate(to: host.slideURL(presentationId: 2))
            try await storyclm.waitForSlide("index.html")
            let other = try #require(try await storyclm.evaluate("window.__storybridge.viewerId").stringValue)

            // Only the OCE viewer's card has the buttons; each press reaches the page once.
            try await inspector.navigate(to: host.inspectorURL)
            let card = "#viewer-cards .viewer[data-viewer=\"\(viewer)\"]"
            try await inspector.waitFor("!!document.querySelector('\(card) .player-button[data-event=\"pausebuttonpress\"]')")
            #expect(try await inspector.evaluate("document.querySelectorAll('[data-viewer=\"\(other)\"] .player-button').length") == 0)
            // The OCE viewer's card shows its slide's thumbnail; the StoryCLM deck has none.
            #expect(
                try await inspector.evaluate("document.querySelector('\(card) img.thumbnail').getAttribute('data-thumbnail')")
                    == "/p/1/Intro/01_thumbnail.jpg")
            #expect(try await inspector.evaluate("document.querySelectorAll('[data-viewer=\"\(other)\"] img.thumbnail').length") == 0)
            try await inspector.click("\(card) .player-button[data-event=\"returntocallbuttonpress\"]")
            try await slide.waitFor("window.events.indexOf('returntocallbuttonpress') >= 0")
            try await inspector.click("\(card) .player-button[data-event=\"pausebuttonpress\"]")
            try await slide.waitFor("window.events.indexOf('pausebuttonpress') >= 0")
            #expect(
                try await slide.evaluate("JSON.stringify(window.events)")
                    == #"["viewappearing","returntocallbuttonpress","pausebuttonpress"]"#)

            // The endpoint's refusals, each with its reason.
            func press(_ viewer: String, _ event: String, token: Bool = true) async throws -> (Int, String) {
                let query = token ? "?token=\(host.server.token)" : ""
                let pair = try #require(
                    try await inspector.evaluate(
                        "fetch('/__storybridge/viewers/\(viewer)/player/\(event)\(query)', {method: 'POST'}).then(r => r.text().then(t => [r.status, t]))"
                    ).arrayValue)
                return (pair[0].intValue ?? 0, pair[1].stringValue ?? "")
            }
            #expect(try await press(viewer, "cancelbuttonpress", token: false).0 == 403)
            let nobody = try await press("nobody", "cancelbuttonpress")
            #expect(nobody.0 == 404 && nobody.1.contains("No viewer 'nobody'"), "\(nobody)")
            let unknown = try await press(viewer, "homebuttonpress")
            #expect(unknown.0 == 400 && unknown.1.hasPrefix("'homebuttonpress' is not a player button; one of: returntocallbuttonpress"))
            let storyCLMViewer = try await press(other, "cancelbuttonpress")
            #expect(storyCLMViewer.0 == 409 && storyCLMViewer.1.contains("not an OCE deck"), "\(storyCLMViewer)")
            #expect(try await slide.evaluate("window.events.indexOf('cancelbuttonpress')") == -1)

            // The refused updateFeedback is a refused row named by its function, not a Success.
            let refused = try await inspector.waitFor(
                """
                (function () {
                  var row = document.querySelector('#log tr.entry[data-call="CLMPlayer.updateFeedback"]');
                  return row ? [row.dataset.status, row.classList.contains('failure')] : null;
                })()
                """)
            #expect(refused == ["refused", true])
        } cleanup: {
            await slide.close()
            await storyclm.close()
            await inspector.close()
            await host.stop()
        }
    }
}
