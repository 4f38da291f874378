import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeServer
import StoryBridgeTesting
import Testing

/// Width and height of a PNG, read from its IHDR chunk.
private func pngSize(_ png: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](png.prefix(24))
    guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
    func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (int(16), int(20))
}

@Suite("Inspector page in headless Chromium", .serialized)
struct InspectorPageTests {
    @Test("lists a browser viewer's calls live, filters them, shows viewer state, sessions and the upload queue, and renders")
    func inspectorPage() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.uploadCollector = "http://127.0.0.1:9/"
        let host = try await TestHost.start(presentationFolders: [demoFolder], server: configuration)
        let browser = try await SharedBrowser.shared.get()
        let slide = try await browser.newPage()
        let inspector = try await browser.newPage()
        try await withCleanup {
            // A saved session from a scripted viewer puts records into the upload queue.
            let scripted = try await host.connectViewer(slide: "index.html", viewerId: "scripted-viewer")
            _ = try await scripted.request("setCustomEvent", data: ["key": "score", "value": "5"])
            #expect(try await scripted.request("closePresentation", data: ["mode": 1]).status == .success)
            await scripted.close()

            // A real page of the demo makes calls before the inspector opens...
            try await slide.openSlide(on: host)
            let viewerId = try #require(try await slide.evaluate("window.__storybridge.viewerId").stringValue)
            #expect(try await slide.press("getUserInfo")["status"] == "Success")

            try await inspector.navigate(to: host.inspectorURL)
            try await inspector.waitFor("window.__inspector && window.__inspector.ready")
            // ...and they are in the list (history replayed), with status and code.
            let earlier = try await inspector.waitFor(
                "(function(){var r=document.querySelector('#log-table tr.entry[data-command=\"getUserInfo\"]');return r?r.textContent:null;})()"
            )
            #expect(earlier.stringValue?.contains("Success") == true)
            #expect(earlier.stringValue?.contains("200") == true)

            // A call made now appears live, and an unknown command shows as a failure with its code.
            try await slide.evaluate("StoryCLM.Presentation.GetCurrentSlideName(function () {}); true")
            try await slide.evaluate("window.__storybridge.request('noSuchCommand', {}, function () {}); true")
            try await inspector.waitFor("document.querySelector('#log-table tr.entry[data-command=\"getCurrentSlideName\"]')")
            let failure = try await inspector.waitFor(
                "(function(){var r=document.querySelector('#log-table tr.entry.failure[data-command=\"noSuchCommand\"]');return r?r.textContent:null;})()"
            )
            #expect(failure.stringValue?.contains("400") == true)
            // Clicking a row shows its request and response Data.
            try await inspector.click("#log-table tr.entry[data-command=\"getUserInfo\"]")
            let detail = try await inspector.waitFor(
                "(function(){var d=document.querySelector('#log-table tr.detail');return d?d.textContent:null;})()")
            #expect(detail.stringValue?.contains("response Data") == true)
            #expect(detail.stringValue?.contains("local-user") == true)

            // Filtering by command leaves only matching rows visible; by viewer, only that viewer's.
            try await inspector.type("#filter-command", "noSuch")
            let visibleCommands = try await inspector.waitFor(
                """
                (function(){var names=[].slice.call(document.querySelectorAll('#log-table tr.entry'))
                  .filter(function(r){return r.style.display!=='none';}).map(function(r){return r.dataset.command;});
                  return names.length && names.every(function(n){return n==='noSuchCommand';}) ? names : null;})()
                """)
            #expect(visibleCommands.arrayValue?.isEmpty == false)
            #expect(try await inspector.text("#count-shown") == String(visibleCommands.arrayValue?.count ?? -1))
            try await inspector.type("#filter-command", "")
            try await inspector.waitFor(
                "[].some.call(document.querySelectorAll('#viewer-cards .viewer'), function(c){return c.dataset.viewer===\(JSONValue.string(viewerId).jsonString());})"
            )
            try await inspector.evaluate(
                "[].filter.call(document.querySelectorAll('#viewer-cards .viewer'), function(c){return c.dataset.viewer===\(JSONValue.string(viewerId).jsonString());})[0].click(); true"
            )
            #expect(try await inspector.evaluate("document.getElementById('filter-viewer').value") == .string(viewerId))
            let otherViewersShown = try await inspector.evaluate(
                "[].filter.call(document.querySelectorAll('#log-table tr.entry'), function(r){return r.style.display!=='none' && r.dataset.viewer && r.dataset.viewer!==\(JSONValue.string(viewerId).jsonString());}).length"
            )
            #expect(otherViewersShown == 0)

            // The viewer's card shows its slide, history and chrome flags, following commands.
            try await slide.evaluate("StoryCLM.Map.HideMapBtn(); true")
            let card = try await inspector.waitFor(
                """
                (function(){var c=[].filter.call(document.querySelectorAll('#viewer-cards .viewer.connected'),
                  function(c){return c.dataset.viewer===\(JSONValue.string(viewerId).jsonString());})[0];
                  return c && c.querySelector('.chip.off') ? c.textContent : null;})()
                """, timeout: .seconds(20))
            #expect(card.stringValue?.contains("index.html") == true)
            #expect(card.stringValue?.contains("map") == true)

            // Sessions: the saved one (state 1) and the browser's current one; the saved one opens
            // to its records.
            let sessions = try await inspector.waitFor(
                "document.querySelectorAll('#sessions-table tr.session').length >= 2 && document.querySelector('#sessions-table tr.session.current') ? document.querySelector('#sessions-table tbody').textContent : null"
            )
            let name = try #require(host.runtime.library.presentation(id: 1)?.name)
            #expect(sessions.stringValue?.contains(name) == true)
            try await inspector.evaluate(
                "document.querySelector('#sessions-table tr.session.complete, #sessions-table tr.session:not(.current)').click(); true")
            let records = try await inspector.waitFor(
                "(function(){var d=document.querySelector('#sessions-table tr.session-detail');return d?d.textContent:null;})()")
            #expect(records.stringValue?.contains("score") == true)

            // Upload: enabled, the collector named, the saved session's records queued.
            let queued = try await inspector.waitFor(
                "(function(){var q=document.querySelector('#upload [data-field=\"queued\"]');return q && /^[1-9]/.test(q.textContent) ? q.textContent : null;})()"
            )
            #expect(Int(queued.stringValue ?? "") ?? 0 >= 2)
            #expect(try await inspector.text("#upload [data-field=\"collector\"]") == "http://127.0.0.1:9/")

            // It renders: the stylesheet applies, every panel has room, nothing overflows sideways,
            // and the screenshot is a full-window picture with real content.
            let layout = try await inspector.evaluate(
                """
                (function(){
                  var panels=['log','viewers','sessions','upload'].map(function(id){
                    var r=document.getElementById(id).getBoundingClientRect(); return {id:id,w:r.width,h:r.height};});
                  var sheet=document.styleSheets[0];
                  return {panels:panels, styled:!!sheet && sheet.cssRules.length>20,
                    overflow:document.documentElement.scrollWidth>window.innerWidth+1};
                })()
                """)
            #expect(layout["styled"] == true)
            #expect(layout["overflow"] == false)
            for panel in layout["panels"]?.arrayValue ?? [] {
                #expect((panel["w"]?.doubleValue ?? 0) > 200, "\(panel)")
                #expect((panel["h"]?.doubleValue ?? 0) > 40, "\(panel)")
            }
            let png = try await inspector.screenshot()
            let size = try #require(pngSize(png))
            #expect(size.width >= 800 && size.height >= 500)
            #expect(png.count > 30_000)
            try png.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-inspector.png"))
        } cleanup: {
            await slide.close()
            await inspector.close()
            await host.stop()
        }
    }

    @Test("the inspector reconnects its live feed after the host restarts on the same port")
    func reconnects() async throws {
        let first = try await TestHost.start(presentationFolders: [demoFolder])
        let port = first.server.port
        let token = first.server.token
        let page = try await SharedBrowser.shared.get().newPage()
        do {
            try await page.navigate(to: first.inspectorURL)
            try await page.waitFor(
                "window.__inspector && window.__inspector.ready && document.getElementById('status').textContent === 'live'")
            await first.stop()
            try await page.waitFor("document.getElementById('status').textContent !== 'live'")
            let second = try await TestHost.start(
                presentationFolders: [demoFolder], server: ServerConfiguration(port: port, token: token))
            let viewer = try await second.connectViewer(slide: "index.html", viewerId: "after-restart")
            _ = try await viewer.request("getAppInfo")
            try await page.waitFor(
                "document.getElementById('status').textContent === 'live' && !!document.querySelector('#log-table tr.entry[data-command=\"getAppInfo\"]')",
                timeout: .seconds(30))
            await viewer.close()
            await second.stop()
        } catch {
            await page.close()
            await first.stop()
            throw error
        }
        await page.close()
    }
}
