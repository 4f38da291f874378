import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `/fleet/kiosks/{id}` and its `plot.svg` (docs/design/FLEET.md §6): a real hub on loopback, a
/// real kiosk socket, an admin signed in with the login form.
@Suite("Fleet hub: the kiosk page")
struct FleetKioskPageTests {
    /// A name a kiosk's owner could give it, meant to run script in the dashboard.
    static let hostileName = "<img src=x onerror=alert(1)>"

    @Test(
        "the kiosk page shows the last beat, the schedule, the newest checkpoint, state changes and sync runs, every kiosk value escaped; its plot is well-formed SVG"
    )
    func page() async throws {
        let (lab, _, device, token) = try ContentLab.enrolling(Self.hostileName, labels: ["site": "berlin"])
        let key = HostKey()
        try await lab.withFleetHub { hub, running, _ in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text, key: key, interval: 15)
            let failedAt = Date().addingTimeInterval(-600)
            var beat = FleetHistoryTests.beat(1, queued: 7, syncAt: failedAt)
            beat.decks = [Beat.Deck(id: 12, name: "Cardio <b>2027</b>", revision: 7, pinnedRevision: 6)]
            beat.viewers = Beat.Viewers(
                count: 1, list: [Beat.Viewer(viewer: "v-1", connected: true, presentation: 12, slide: "a&b.html", since: Date())])
            beat.health = Beat.Health(status: "unhealthy", problems: ["sync failing <since> 10 min"])
            beat.log = Beat.Log(entries: [Beat.LogEntry(at: Date(), level: "warning", message: "<script>alert(2)</script>")])
            beat.schedule = Beat.ScheduleNow(presentation: 12, slide: nil, source: "weekly", until: Date().addingTimeInterval(3600))
            beat.checkpoint = try FleetCheckpointTests.document(key, sequence: 3, position: 30)
            try await kiosk.beat(beat)
            await hub.history.flush(everything: true)

            var browser = FleetBrowser(port: running.port)
            let signedOut = try await browser.send("GET", "/fleet/kiosks/\(device.id)")
            #expect(signedOut.status == 303 && signedOut.headers["location"] == "/fleet/login")
            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)

            let overview = try await browser.send("GET", "/fleet")
            #expect(overview.text.contains("<a href=\"/fleet/kiosks/\(device.id)\">&lt;img src=x"), "\(overview.text)")

            let page = try await browser.send("GET", "/fleet/kiosks/\(device.id)")
            #expect(page.status == 200, "\(page.text)")
            #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            let html = page.text
            #expect(!html.contains("<img src=x") && !html.contains("<script>alert") && !html.contains("<b>2027"))
            #expect(html.contains("<h1 id=\"name\">&lt;img src=x onerror=alert(1)&gt;</h1>"), "\(html)")
            #expect(html.contains("Cardio &lt;b&gt;2027&lt;/b&gt;") && html.contains("a&amp;b.html"))
            #expect(html.contains("sync failing &lt;since&gt; 10 min") && html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"))
            #expect(html.contains("Newest checkpoint: sequence 3 · position 30"), "\(html)")
            #expect(html.contains("Now: presentation 12 (weekly)"), "\(html)")
            #expect(html.contains("<td>new</td><td>online</td>"), "the state change of the connection")
            #expect(html.contains("<td>failed</td><td>69</td>"), "the sync run")
            #expect(html.contains("src=\"/fleet/kiosks/\(device.id)/plot.svg\""))

            let plot = try await browser.send("GET", "/fleet/kiosks/\(device.id)/plot.svg")
            #expect(plot.status == 200)
            #expect(plot.headers["content-type"]?.hasPrefix("image/svg+xml") == true)
            let parser = XMLParser(data: plot.body)
            #expect(parser.parse(), "plot.svg is not well-formed: \(String(describing: parser.parserError)) \(plot.text)")
            #expect(plot.text.contains("<polyline class=\"queue\""), "\(plot.text)")
            #expect(plot.text.contains("class=\"sync failed\""))
            #expect(plot.text.contains("top 7"))

            let missing = try await browser.send("GET", "/fleet/kiosks/d_nosuchdevic")
            #expect(missing.status == 404)
            #expect(try await browser.send("GET", "/fleet/static/kiosk.js").status == 200)
            kiosk.disconnect()
        }
    }
}
