import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The dashboard `/fleet` in headless Chromium (docs/design/FLEET.md §6): a real hub on loopback,
/// kiosks on real sockets beating every second, an admin who signs in through the form.
@Suite("Fleet dashboard in headless Chromium", .serialized)
struct FleetDashboardTests {
    /// A kiosk that beats every second (its interval) until cancelled.
    private func beating(_ kiosk: FleetTestKiosk) -> Task<Void, Never> {
        Task {
            var seq = 1
            while !Task.isCancelled {
                kiosk.beat(seq)
                seq += 1
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// The condition that `deviceId`'s row shows `presence`.
    private func row(_ deviceId: String, is presence: String) -> String {
        "(function(){var r=document.querySelector('tr[data-id=\"\(deviceId)\"]');return !!r && r.dataset.presence===\(JSONValue.string(presence).jsonString());})()"
    }

    @Test(
        "an admin signs in and sees two kiosks live: one whose socket dies goes offline and comes back online without a reload; names render as text; filters; ?bench=1 records applied rows"
    )
    func live() async throws {
        let (lab, store, lobby, lobbyToken) = try ContentLab.enrolling("lobby-1", labels: ["site": "berlin"])
        let hostile = "<img src=x onerror=window.__xss=1>"
        let (hall, hallToken) = try store.add(name: hostile, labels: ["site": "paris"])
        try await lab.withFleetHub { _, running, _ in
            let lobbyKey = HostKey()
            let lobbyKiosk = try await FleetTestKiosk.connected(port: running.port, token: lobbyToken.text, key: lobbyKey, interval: 1)
            let hallKiosk = try await FleetTestKiosk.connected(port: running.port, token: hallToken.text, interval: 1)
            let lobbyBeats = beating(lobbyKiosk)
            let hallBeats = beating(hallKiosk)
            let browser = try await HeadlessChromium.launch()
            try await browser.closingAfter { browser in
                let page = try await browser.newPage()
                try await page.signInToFleet(at: running.baseURL)
                try await page.waitFor("location.pathname === '/fleet' && window.__fleetReady === true")
                try await page.waitFor(row(lobby.id, is: "online"))
                try await page.waitFor(row(hall.id, is: "online"))
                let names = try await page.evaluate(
                    "[].map.call(document.querySelectorAll('#kiosks tbody tr td:nth-child(2)'), function(c){return c.textContent;}).join('|')"
                )
                #expect(names.stringValue?.contains(hostile) == true, "\(names)")
                #expect(
                    try await page.evaluate("document.querySelectorAll('img').length === 0 && window.__xss === undefined") == .bool(true))

                // The lobby's kiosk dies (no bye): offline on the open page after three intervals, then back.
                lobbyBeats.cancel()
                lobbyKiosk.disconnect()
                try await page.waitFor(row(lobby.id, is: "offline"))
                #expect(try await page.evaluate("document.getElementById('summary').textContent") == .string("1 online · 1 offline"))
                let again = try await FleetTestKiosk.connected(port: running.port, token: lobbyToken.text, key: lobbyKey, interval: 1)
                let againBeats = beating(again)
                try await page.waitFor(row(lobby.id, is: "online"))
                #expect(try await page.evaluate("window.__fleetLoads === 1 && location.pathname === '/fleet'") == .bool(true), "no reload")
                #expect(try await page.evaluate("window.__fleetApplied === undefined") == .bool(true), "no bench record without ?bench=1")

                // With ?bench=1 the script records each row it applied (storybridge-bench fleet).
                try await page.navigate(to: "\(running.baseURL)/fleet?bench=1")
                try await page.waitFor(
                    "window.__fleetReady === true && (window.__fleetApplied || []).some(function(a){return a.id === \(JSONValue.string(lobby.id).jsonString()) && typeof a.lastBeatAt === 'string' && a.at > 0;})"
                )

                // Filters in the query: applied by the server and kept by the script.
                try await page.navigate(to: "\(running.baseURL)/fleet?label=site:paris")
                try await page.waitFor("window.__fleetReady === true")
                let shown = try await page.evaluate(
                    "[].map.call(document.querySelectorAll('#kiosks tbody tr'), function(r){return r.dataset.id;}).join(',')")
                #expect(shown == .string(hall.id))
                try await page.navigate(to: "\(running.baseURL)/fleet?state=offline,late")
                try await page.waitFor("window.__fleetReady === true")
                #expect(try await page.evaluate("document.querySelectorAll('#kiosks tbody tr').length") == .int(0))
                againBeats.cancel()
                again.disconnect()
            }
            hallBeats.cancel()
            hallKiosk.disconnect()
        }
    }
}
