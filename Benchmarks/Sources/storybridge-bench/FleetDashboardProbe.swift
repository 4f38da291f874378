import Foundation
import StoryBridge
import StoryBridgeTesting

/// The hub's `/fleet` open in headless Chromium with `?bench=1`, signed in as the admin: the
/// rows `fleet.js` applied, each with the kiosk's `lastBeatAt` and the page's `Date.now()` when
/// the table showed it (`window.__fleetApplied`, docs/design/FLEET.md §11), drained through
/// DevTools.
struct FleetDashboardProbe {
    /// One row as the page applied it.
    struct Applied: Decodable {
        var id: String
        var lastBeatAt: String?
        /// Milliseconds since 1970 (the page's `Date.now()`).
        var at: Double
    }

    let page: BrowserPage

    /// Opens the dashboard of the hub at `base` in `browser`, signs in through the form and
    /// waits for the first snapshot.
    static func open(base: String, browser: HeadlessChromium) async throws -> FleetDashboardProbe {
        let page = try await browser.newPage()
        try await page.navigate(to: "\(base)/fleet/login")
        try await page.evaluate(
            """
            document.querySelector('input[name=username]').value = \(JSONValue.string(FleetHubChild.adminName).jsonString());
            document.querySelector('input[name=password]').value = \(JSONValue.string(FleetHubChild.adminPassword).jsonString());
            document.querySelector('form').submit(); true
            """)
        try await page.waitFor("location.pathname === '/fleet' && window.__fleetReady === true", timeout: .seconds(30))
        try await page.navigate(to: "\(base)/fleet?bench=1")
        try await page.waitFor("window.__fleetReady === true && Array.isArray(window.__fleetApplied)", timeout: .seconds(30))
        return FleetDashboardProbe(page: page)
    }

    /// The rows applied since the last call.
    func drain() async throws -> [Applied] {
        let value = try await page.evaluate(
            "JSON.stringify((function(){var a=window.__fleetApplied||[];window.__fleetApplied=[];return a;})())")
        guard let text = value.stringValue else { throw BenchmarkFailure("the dashboard gave no __fleetApplied: \(value)") }
        return try JSONDecoder().decode([Applied].self, from: Data(text.utf8))
    }
}
