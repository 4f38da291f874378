import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// A second presentation, written by the test, that the demo can open.
func secondPresentation() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try """
    <!DOCTYPE html><html><head><meta charset="utf-8"><meta name="clm" content="next.html"><title>Second</title></head>
    <body><h1 id="slide-title">second index</h1><a href="next.html">next</a></body></html>
    """.write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    try "<html><head><meta name=\"clm\" content=\"index.html\"></head><body>next</body></html>"
        .write(to: root.appendingPathComponent("next.html"), atomically: true, encoding: .utf8)
    return root
}

@Suite("Viewer chrome in headless Chromium", .serialized)
struct ViewerChromeTests {
    func withTwo(_ body: (TestHost, BrowserPage) async throws -> Void) async throws {
        try await withBrowser(
            folders: [demoFolder, try secondPresentation()], catalogs: [.init(id: 1, name: "Demo"), .init(id: 2, name: "Second")],
            body)
    }

    @Test("a slide opens a second presentation, which receives the handed-over data")
    func openSecondPresentation() async throws {
        try await withTwo { host, page in
            try await page.openSlide("products.html", on: host)
            try await page.type("#open-target", "2")
            try await page.click("#btn-open")
            try await page.waitFor(
                "window.__storybridge && window.__storybridge.presentation === '2' && window.__storybridge.state.connected")
            #expect(try await page.text("#slide-title") == "second index")
            #expect(try await page.evaluate("JSON.stringify(window.StoryCLMNavigationData)") == #"{"from":"demo"}"#)
            try await page.evaluate(
                "window.__storybridge.request('getBackForwardPresList', {}, function (a) { window.presList = a.Data; })")
            let list = try await page.waitFor("window.presList")
            #expect(list == [["name": "Demo", "presId": 1], ["name": "Second", "presId": 2]])
        }
    }

    @Test("the map button shows the map, and choosing a slide navigates there (navigation out)")
    func map() async throws {
        try await withTwo { host, page in
            try await page.openSlide(on: host)
            #expect(try await page.inChrome("!!root.querySelector('.bar')") == true)
            try await page.clickChrome("map")
            try await page.waitForChrome("root.querySelector('[data-overlay=map] a[data-slide=\"details.html\"]')")
            #expect(try await page.inChrome("root.querySelector('[data-overlay=map] a.current').textContent") == "index.html")
            try await page.evaluate(
                "window.__storybridge.chrome.root.querySelector('[data-overlay=map] a[data-slide=\"details.html\"]').click()")
            try await page.waitForSlide("details.html")
            let viewerId = try #require(try await page.evaluate("window.__storybridge.viewerId").stringValue)
            let viewer = try #require(await host.runtime.viewers.existingViewer(id: viewerId))
            #expect(await viewer.state.lastCause == .map)
        }
    }

    @Test("openMediaFile shows the file in an overlay and answers only when the viewer closes it")
    func mediaFile() async throws {
        try await withTwo { host, page in
            try await page.openSlide("details.html", on: host)
            try await page.click("#btn-openMediaFile-wav")
            try await page.waitForChrome("root.querySelector('[data-overlay=media][data-file=\"chime.wav\"] audio')")
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await page.evaluate("document.getElementById('out-openMediaFile-wav').getAttribute('data-done')") == .null)
            try await page.clickChrome("close-media")
            let text = try await page.waitFor(
                "(function(){var e=document.getElementById('out-openMediaFile-wav');return e.getAttribute('data-done')==='1'?e.textContent:null;})()"
            )
            let answer = try JSONValue.parse(text.stringValue ?? "null")
            #expect(answer["data"] == ["name": "chime.wav", "status": "close"])
            #expect(try await page.inChrome("root.querySelectorAll('[data-overlay]').length") == 0)

            // The PDF opens in the same overlay, in a frame.
            try await page.click("#btn-openMediaFile")
            try await page.waitForChrome("root.querySelector('[data-overlay=media][data-file=\"brochure.pdf\"] iframe')")
            try await page.clickChrome("close-media")
            let pdf = try await page.waitFor(
                "(function(){var e=document.getElementById('out-openMediaFile');return e.getAttribute('data-done')==='1'?e.textContent:null;})()"
            )
            #expect(try JSONValue.parse(pdf.stringValue ?? "null")["data"]?["name"] == "brochure.pdf")
        }
    }

    @Test("the media library opens from content and from the chrome button")
    func mediaLibrary() async throws {
        try await withTwo { host, page in
            try await page.openSlide("details.html", on: host)
            try await page.click("#btn-openMediaLibrary")
            try await page.waitForChrome("root.querySelectorAll('[data-overlay=library] a[data-file]').length === 2")
            try await page.clickChrome("close-library")
            let text = try await page.waitFor(
                "(function(){var e=document.getElementById('out-openMediaLibrary');return e.getAttribute('data-done')==='1'?e.textContent:null;})()"
            )
            #expect(try JSONValue.parse(text.stringValue ?? "null")["data"] == ["status": "close"])
            try await page.clickChrome("media")
            try await page.waitForChrome("root.querySelector('[data-overlay=library]')")

            // A file chosen in the library is shown, and closing it records a media view.
            _ = try await page.inChrome("root.querySelector('[data-overlay=library] a[data-file=\"brochure.pdf\"]').click()")
            try await page.waitForChrome("root.querySelector('[data-overlay=media][data-file=\"brochure.pdf\"]')")
            try await page.clickChrome("close-media")
            let viewerId = try #require(try await page.evaluate("window.__storybridge.viewerId").stringValue)
            let sessionId = try #require(await host.runtime.viewers.existingViewer(id: viewerId)?.state.sessionId)
            let views = try await readHostRecords {
                try await host.runtime.analytics.mediaViews(sessionId: sessionId).map(\.fileName)
            } until: {
                !$0.isEmpty
            }
            #expect(views == ["brochure.pdf"])
        }
    }

    @Test("the chrome is built once the slide has loaded, not while it loads; flags sent before are kept")
    func chromeAfterLoad() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>Timing</title><script>
        document.addEventListener('DOMContentLoaded', function () {
          window.chromeAtReady = !!document.getElementById('storybridge-chrome');
          window.__storybridge.chrome.apply({ mapButton: false });
          window.flagsBeforeBuild = JSON.stringify(window.__storybridge.chrome.flags);
          window.builtEarly = !!document.getElementById('storybridge-chrome');
        });
        window.addEventListener('load', function () {
          window.chromeAtLoad = !!document.getElementById('storybridge-chrome');
        });
        </script></head><body><h1>timing</h1></body></html>
        """.write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try await withBrowser(folders: [root]) { host, page in
            try await page.openSlide(on: host)
            #expect(try await page.evaluate("window.chromeAtReady") == false)
            #expect(try await page.evaluate("window.chromeAtLoad") == true)
            // Flags that reach the chrome before it is built are kept without building it.
            #expect(try await page.evaluate("window.flagsBeforeBuild") == #"{"mapButton":false}"#)
            #expect(try await page.evaluate("window.builtEarly") == false)
            #expect(try await page.inChrome("root.querySelectorAll('.bar button').length") == 3)
            try await page.evaluate("window.__storybridge.chrome.apply({ mapButton: false })")
            #expect(try await page.evaluate("window.__storybridge.chrome.isShown('map')") == false)
            #expect(try await page.evaluate("window.__storybridge.chrome.isShown('close')") == true)
        }
    }

    @Test("content hides and shows the chrome buttons, and the state survives the next slide")
    func buttonsHideAndShow() async throws {
        try await withTwo { host, page in
            try await page.openSlide("details.html", on: host)
            for action in ["close", "map", "media"] {
                #expect(try await page.evaluate("window.__storybridge.chrome.isShown('\(action)')") == true)
            }
            try await page.click("#btn-hideMapBtn")
            try await page.waitFor("!window.__storybridge.chrome.isShown('map')")
            try await page.click("#btn-showMapBtn")
            try await page.waitFor("window.__storybridge.chrome.isShown('map')")
            try await page.click("#btn-hideMediaLibraryBtn")
            try await page.waitFor("!window.__storybridge.chrome.isShown('media')")
            try await page.click("#btn-hideCloseBtn")
            try await page.waitFor("!window.__storybridge.chrome.isShown('close')")
            #expect(try await page.evaluate("window.__storybridge.chrome.isShown('map')") == true)
            try await page.click("#btn-go")
            try await page.waitForSlide("summary.html")
            try await page.waitFor("window.__storybridge.chrome.flags.closeButton === false")
            #expect(try await page.evaluate("window.__storybridge.chrome.isShown('close')") == false)
            #expect(try await page.evaluate("window.__storybridge.chrome.isShown('media')") == false)
            #expect(try await page.evaluate("window.__storybridge.chrome.isShown('map')") == true)
        }
    }

    /// The demo with the content service's `needConfirmation` set, as a synced library holds it.
    func withConfirmingDemo(_ body: (TestHost, BrowserPage) async throws -> Void) async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder]) { host in
            var demo = try #require(host.library.presentation(id: 1))
            demo.flags.needsConfirmation = true
            host.library.add(demo)
        }
        try await withPage(on: host) { page in try await body(host, page) }
    }

    @Test("on a needConfirmation deck the close button asks to save; cancel stays, save lands on the closed page")
    func closeWithDialog() async throws {
        try await withConfirmingDemo { host, page in
            try await page.openSlide("summary.html", on: host)
            try await page.clickChrome("close")
            try await page.waitForChrome("root.querySelector('[data-overlay=confirm-close]')")
            try await page.clickChrome("cancel")
            try await page.waitForChrome("!root.querySelector('[data-overlay=confirm-close]')")
            #expect(try await page.evaluate("window.__storybridge.slide") == "summary.html")
            try await page.clickChrome("close")
            try await page.waitForChrome("root.querySelector('[data-overlay=confirm-close]')")
            try await page.clickChrome("save")
            try await page.waitFor("document.getElementById('closed') && document.readyState === 'complete'")
            #expect(try await page.evaluate("document.getElementById('closed').getAttribute('data-outcome')") == "saved")
            try await page.click("#reopen")
            try await page.waitForSlide("index.html")
        }
    }

    @Test("opening a deck that is not installed, or is blocked, shows why over the slide, which stays")
    func openUnavailable() async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder, try secondPresentation()],
            catalogs: [.init(id: 1, name: "Demo"), .init(id: 2, name: "Second")]
        ) { host in
            var second = try #require(host.library.presentation(id: 2))
            second.flags.isLockedOut = true
            host.library.add(second)
        }
        try await withPage(on: host) { page in
            try await page.openSlide("products.html", on: host)
            try await page.type("#open-target", "12")
            try await page.click("#btn-open")
            try await page.waitForChrome("root.querySelector('[data-overlay=unavailable][data-presentation=\"12\"]')")
            let missing = try await page.inChrome("root.querySelector('[data-overlay=unavailable]').textContent")
            #expect(missing.stringValue?.contains("Presentation not installed") == true)
            #expect(missing.stringValue?.contains("Presentation 12 is not installed on this host") == true)
            #expect(missing.stringValue?.contains("storybridge sync --content 12") == true)
            try await page.clickChrome("close-unavailable")
            try await page.waitForChrome("!root.querySelector('[data-overlay=unavailable]')")

            try await page.evaluate("document.getElementById('open-target').value = ''")
            try await page.type("#open-target", "2")
            try await page.click("#btn-open")
            try await page.waitForChrome("root.querySelector('[data-overlay=unavailable][data-presentation=\"2\"]')")
            let blocked = try await page.inChrome("root.querySelector('[data-overlay=unavailable]').textContent")
            #expect(blocked.stringValue?.contains("blocked by the content service") == true)
            #expect(try await page.evaluate("window.__storybridge.slide") == "products.html")
        }
    }

    @Test("on a deck without needConfirmation the close button closes at once and saves, as the apps' close does")
    func closeWithoutDialog() async throws {
        try await withTwo { host, page in
            try await page.openSlide("summary.html", on: host)
            try await page.clickChrome("close")
            try await page.waitFor("document.getElementById('closed') && document.readyState === 'complete'")
            #expect(try await page.evaluate("document.getElementById('closed').getAttribute('data-outcome')") == "saved")
        }
    }

    @Test("a screenshot of a slide with its chrome renders")
    func screenshot() async throws {
        try await withTwo { host, page in
            try await page.openSlide(on: host)
            let png = try await page.screenshot()
            #expect(png.count > 5_000)
            #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
            try png.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-demo-index.png"))
        }
    }

    @Test("a host launched by a deep link opens its slide in the browser and the page reads the link")
    func deepLink() async throws {
        let link = try DeepLink("storyclm://content?contentId=1&slide=summary.html&campaign=winter")
        let host = try await TestHost.start(presentationFolders: [demoFolder], deepLink: link)
        try await withPage(on: host) { page in
            try await page.navigate(to: host.baseURL + "/")
            try await page.waitForSlide("summary.html")
            try await page.evaluate(
                "window.__storybridge.request('getDeepLinkingInboundData', {}, function (a) { window.inbound = a; })")
            let inbound = try await page.waitFor("window.inbound")
            #expect(inbound["Status"] == "Success")
            #expect(inbound["Data"]?["parameters"]?["campaign"] == "winter")
        }
    }
}
