import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The kiosk page's screenshot button, schedule view and kiosk browser figures, and
/// `lastScreenshotAt` in `/v1/fleet` (docs/design/FLEET.md §6, §9.3, §9.4, §10): a real hub on
/// loopback, kiosks on real sockets (one answering screenshot requests with a real PNG, as serve
/// does), an admin signed in through the login form.
@Suite("Fleet dashboard: screenshots, schedules, idle resets", .serialized)
struct FleetKioskDashboardTests {
    /// The test kiosk's screenshot: 160×90 of one green.
    static let screenshot = FleetTestKiosk.Screenshot(png: TestPNG.solid(width: 160, height: 90, rgb: (0, 160, 0)), width: 160, height: 90)

    /// A schedule as serve understands it (`DeckSchedule.json`, what the hello carries), with
    /// markup in a slide's name (a kiosk is untrusted) and an exception two days from now.
    static func schedule() throws -> JSONValue {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let parts = calendar.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(2 * 86_400))
        let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let configured = try JSONValue.parse(
            """
            {"timeZone": "Europe/Berlin", "default": {"presentation": 11},
             "weekly": [{"days": ["mon", "tue", "wed", "thu", "fri"], "from": "08:00", "to": "12:00", "presentation": 12, "slide": "a<b>.html"},
                        {"days": ["sat"], "from": "22:00", "to": "02:00", "presentation": 13}],
             "exceptions": [{"date": "\(date)", "windows": []}]}
            """)
        return try DeckSchedule.parse(configured).json
    }

    /// A beat numbered `seq` saying `playing` plays now, with the kiosk browser's figures.
    static func beat(_ seq: Int, playing: Beat.ScheduleNow, idleResets: Int, lastInput: Int?) -> Beat {
        var beat = Beat(seq: seq, sentAt: Date(), instance: "i", uptimeSeconds: seq, version: "0.1.0", name: "lobby-1")
        beat.schedule = playing
        beat.kiosk = Beat.KioskStatus(
            attached: true, mode: "headless", browserRestarts: 1, idleResets: idleResets, lastInputSecondsAgo: lastInput)
        return beat
    }

    /// The `/v1/fleet` object of `deviceId`, read with the browser's session.
    private func listed(_ browser: inout FleetBrowser, _ deviceId: String) async throws -> JSONValue? {
        let list = try await browser.send("GET", "/v1/fleet")
        #expect(list.status == 200, "\(list.text)")
        return try JSONValue.parse(list.text)["kiosks"]?.arrayValue?.first { $0["id"]?.stringValue == deviceId }
    }

    @Test(
        "after a real screenshot round trip /v1/fleet and /v1/fleet/kiosks/{id} report lastScreenshotAt (the hub's time of storing it), also after a hub restart; the kiosk page shows the stored picture, the schedule and what plays now, escaped"
    )
    func lastScreenshotAt() async throws {
        let (lab, _, device, token) = try ContentLab.enrolling("lobby-1")
        let key = HostKey()
        let stored: String = try await lab.withFleetHub { _, running, _ in
            let kiosk = try await FleetTestKiosk.connected(
                port: running.port, token: token.text, key: key, schedule: try Self.schedule(), screenshot: Self.screenshot)
            try await kiosk.beat(
                Self.beat(
                    1, playing: Beat.ScheduleNow(presentation: 12, slide: "a<b>.html", source: "weekly", until: nil), idleResets: 2,
                    lastInput: 40))
            var browser = FleetBrowser(port: running.port)
            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)
            let before = try await listed(&browser, device.id)
            #expect(before?["lastScreenshotAt"] == JSONValue.null, "\(String(describing: before))")
            let overview = try await browser.send("GET", "/fleet")
            let csrf = try #require(FleetBrowser.csrf(in: overview.text))
            #expect(overview.text.contains("<td>12, slide a&lt;b&gt;.html · weekly</td>"), "\(overview.text)")

            let taken = try await browser.send(
                "POST", "/fleet/kiosks/\(device.id)/screenshot",
                headers: ["X-CSRF-Token: \(csrf)", "Origin: http://127.0.0.1:\(running.port)"])
            #expect(taken.status == 200, "\(taken.text)")
            let answer = try JSONValue.parse(taken.text)
            #expect(answer["width"]?.intValue == 160 && answer["height"]?.intValue == 90)
            let receivedAt = try #require(answer["receivedAt"]?.stringValue)
            let after = try await listed(&browser, device.id)
            #expect(after?["lastScreenshotAt"]?.stringValue == receivedAt, "\(String(describing: after))")
            let detail = try await browser.send("GET", "/v1/fleet/kiosks/\(device.id)")
            #expect(try JSONValue.parse(detail.text)["lastScreenshotAt"]?.stringValue == receivedAt, "\(detail.text)")
            let picture = try await browser.send("GET", "/fleet/kiosks/\(device.id)/screenshot.png")
            #expect(picture.status == 200 && picture.body == Self.screenshot.png)

            let page = try await browser.send("GET", "/fleet/kiosks/\(device.id)")
            let html = page.text
            #expect(html.contains("src=\"/fleet/kiosks/\(device.id)/screenshot.png?t="), "\(html)")
            #expect(html.contains("by the kiosk&#39;s clock · 160×90"), "\(html)")
            #expect(html.contains("id=\"screenshot-button\"") && html.contains("data-csrf=\"\(csrf)\""))
            #expect(!html.contains("a<b>"), "markup from the kiosk is escaped")
            #expect(html.contains("Now: presentation 12, slide a&lt;b&gt;.html (weekly)"), "\(html)")
            #expect(html.contains("<td>Monday</td><td>08:00–12:00 presentation 12, slide a&lt;b&gt;.html</td>"), "\(html)")
            #expect(html.contains("<td>Saturday</td><td>22:00–02:00 (next day) presentation 13</td>"))
            #expect(html.contains("<td>Sunday</td><td>— (the default)</td>"))
            #expect(html.contains("Default (outside every window): presentation 11") && html.contains("Time zone: Europe/Berlin"))
            #expect(html.contains("<td>all day</td><td></td><td>the default</td>"), "the exception two days from now")
            #expect(html.contains("<dd id=\"idle-resets\">2</dd>") && html.contains("<dd id=\"last-input\">40 s before the last beat</dd>"))
            kiosk.disconnect()
            return receivedAt
        }
        // A new hub over the same database: the registry reads kiosk_state.lastScreenshotAt at its start.
        try await lab.withFleetHub { _, running, _ in
            var browser = FleetBrowser(port: running.port)
            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)
            let restarted = try await listed(&browser, device.id)
            #expect(restarted?["lastScreenshotAt"]?.stringValue == stored, "\(String(describing: restarted))")
        }
    }

    @Test(
        "in headless Chromium the kiosk page's Screenshot button shows the kiosk's picture at its natural size with when it was taken; what plays now and the idle resets follow the beats live; a kiosk not connected shows the 409 message, a failing one 502 with its reason, a silent one 504"
    )
    func browser() async throws {
        let (lab, store, device, token) = try ContentLab.enrolling("lobby-1")
        let (absent, _) = try store.add(name: "never-installed")
        let (broken, brokenToken) = try store.add(name: "broken-browser")
        let (silent, silentToken) = try store.add(name: "silent")
        try await lab.withFleetHub { _, running, _ in
            var failing = Self.screenshot
            failing.error = "the browser <crashed>"
            let brokenKiosk = try await FleetTestKiosk.connected(port: running.port, token: brokenToken.text, screenshot: failing)
            // Connected, but it never answers a screenshot request.
            let silentKiosk = try await FleetTestKiosk.connected(port: running.port, token: silentToken.text)
            let kiosk = try await FleetTestKiosk.connected(
                port: running.port, token: token.text, schedule: try Self.schedule(), screenshot: Self.screenshot)
            try await kiosk.beat(
                Self.beat(
                    1, playing: Beat.ScheduleNow(presentation: 12, slide: nil, source: "weekly", until: nil), idleResets: 0, lastInput: nil)
            )
            let chromium = try await HeadlessChromium.launch()
            try await chromium.closingAfter { chromium in
                let page = try await chromium.newPage()
                try await page.signInToFleet(at: running.baseURL)
                try await page.waitFor("location.pathname === '/fleet'")
                try await page.navigate(to: "\(running.baseURL)/fleet/kiosks/\(device.id)")
                try await page.waitFor("window.__kioskReady === true")
                #expect(try await page.evaluate("document.getElementById('screenshot').hidden") == .bool(true), "no screenshot yet")
                #expect(
                    try await page.evaluate("document.getElementById('playing').textContent") == .string("Now: presentation 12 (weekly)"))
                let monday = try await page.evaluate(
                    "[].find.call(document.querySelectorAll('#schedule-weekly tr'), function(r){return r.cells[0].textContent==='Monday';}).cells[1].textContent"
                )
                #expect(monday == .string("08:00–12:00 presentation 12, slide a<b>.html"), "the slide's name as text")

                try await page.click("#screenshot-button")
                try await page.waitFor(
                    "(function(){var i=document.getElementById('screenshot');return !i.hidden && i.complete && i.naturalWidth===160 && i.naturalHeight===90;})()"
                )
                try await page.waitFor("document.getElementById('screenshot-status').dataset.state === 'done'")
                let taken = try await page.evaluate("document.getElementById('screenshot-taken').textContent")
                #expect(
                    taken.stringValue?.hasPrefix("Taken 20") == true
                        && taken.stringValue?.hasSuffix("by the kiosk's clock · 160×90") == true, "\(taken)")
                #expect(
                    try await page.evaluate("document.getElementById('screenshot').getAttribute('src').indexOf('/screenshot.png?t=') > 0")
                        == .bool(true))

                // A beat with an exception playing and an idle reset: the open page follows it.
                try await kiosk.beat(
                    Self.beat(
                        2,
                        playing: Beat.ScheduleNow(presentation: 14, slide: "intro.html", source: "exception", until: nil, installed: false),
                        idleResets: 3, lastInput: 75))
                try await page.waitFor(
                    "document.getElementById('playing').textContent === 'Now: presentation 14, slide intro.html (not installed on the kiosk) (exception)'"
                )
                try await page.waitFor(
                    "document.getElementById('idle-resets').textContent === '3' && document.getElementById('last-input').textContent === '1 min before the last beat'"
                )

                // The stored picture is shown when the page loads.
                try await page.navigate(to: "\(running.baseURL)/fleet/kiosks/\(device.id)")
                try await page.waitFor(
                    "(function(){var i=document.getElementById('screenshot');return !i.hidden && i.complete && i.naturalWidth===160;})()")

                // A kiosk that never connected: 409, said so on the page.
                try await page.navigate(to: "\(running.baseURL)/fleet/kiosks/\(absent.id)")
                try await page.waitFor("window.__kioskReady === true")
                #expect(
                    try await page.evaluate("document.getElementById('kiosk-browser').hidden") == .bool(true), "no kiosk part in any beat")
                try await page.click("#screenshot-button")
                try await page.waitFor("document.getElementById('screenshot-status').dataset.state === 'error'")
                let refused = try await page.evaluate("document.getElementById('screenshot-status').textContent")
                #expect(
                    refused.stringValue?.hasPrefix("No screenshot (409): the kiosk is not connected to the hub") == true
                        && refused.stringValue?.contains("the kiosk is not connected to the hub") == true, "\(refused)")
                #expect(try await page.evaluate("document.getElementById('screenshot').hidden") == .bool(true))

                // The kiosk's own failure: 502 with its reason, as text.
                try await page.navigate(to: "\(running.baseURL)/fleet/kiosks/\(broken.id)")
                try await page.waitFor("window.__kioskReady === true")
                try await page.click("#screenshot-button")
                try await page.waitFor("document.getElementById('screenshot-status').dataset.state === 'error'")
                #expect(
                    try await page.evaluate("document.getElementById('screenshot-status').textContent")
                        == .string("No screenshot (502): the kiosk could not take it: the browser <crashed>"))

                // No answer: 504 once the hub's 5 s are up; the button is busy meanwhile.
                try await page.navigate(to: "\(running.baseURL)/fleet/kiosks/\(silent.id)")
                try await page.waitFor("window.__kioskReady === true")
                try await page.click("#screenshot-button")
                #expect(try await page.evaluate("document.getElementById('screenshot-button').disabled") == .bool(true))
                try await page.waitFor("document.getElementById('screenshot-status').dataset.state === 'error'", timeout: .seconds(20))
                let late = try await page.evaluate("document.getElementById('screenshot-status').textContent")
                #expect(late.stringValue?.hasPrefix("No screenshot (504): the kiosk did not answer within 5 s") == true, "\(late)")
                #expect(try await page.evaluate("document.getElementById('screenshot-button').disabled") == .bool(false))
            }
            brokenKiosk.disconnect()
            silentKiosk.disconnect()
            kiosk.disconnect()
        }
    }

    @Test(
        "/fleet/events?kiosk=ID sends that kiosk only, and its row again with lastScreenshotAt once a screenshot is stored"
    )
    func streamOfOneKiosk() async throws {
        let (lab, store, device, token) = try ContentLab.enrolling("lobby-1")
        let (other, _) = try store.add(name: "other-kiosk")
        try await lab.withFleetHub { _, running, _ in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text, screenshot: Self.screenshot)
            var browser = FleetBrowser(port: running.port)
            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)
            let session = try #require(browser.cookies["sb_fleet"])
            let csrf = try #require(FleetBrowser.csrf(in: try await browser.send("GET", "/fleet").text))
            let snapshot = Flag()
            let request =
                "GET /fleet/events?kiosk=\(device.id) HTTP/1.1\r\nHost: 127.0.0.1:\(running.port)\r\nCookie: sb_fleet=\(session)\r\n\r\n"
            let stream = Task {
                try await RawHTTP.exchange(port: running.port, request, timeout: 60) { response in
                    if response.text.contains("event: snapshot") { snapshot.set() }
                    guard let rows = response.text.range(of: "event: rows") else { return false }
                    return response.text[rows.lowerBound...].contains("\"lastScreenshotAt\":\"")
                }
            }
            try await eventually("the snapshot") { snapshot.isSet }
            let taken = try await browser.send(
                "POST", "/fleet/kiosks/\(device.id)/screenshot",
                headers: ["X-CSRF-Token: \(csrf)", "Origin: http://127.0.0.1:\(running.port)"])
            #expect(taken.status == 200, "\(taken.text)")
            let receivedAt = try #require(try JSONValue.parse(taken.text)["receivedAt"]?.stringValue)
            let text = try await stream.value.text
            #expect(text.contains(device.id) && !text.contains(other.id), "\(text)")
            #expect(text.contains("\"lastScreenshotAt\":\"\(receivedAt)\""), "\(text)")
            kiosk.disconnect()
        }
    }
}
