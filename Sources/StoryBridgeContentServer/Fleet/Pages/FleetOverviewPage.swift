import Foundation
import StoryBridgeFleet

/// `/fleet`: the kiosks the query's filter admits, one row each (with what the schedule plays
/// now), the counts by state, and the
/// sign-out form, rendered by the server (so a bookmarked filter shows right without script) and
/// kept live by `fleet.js` from `/fleet/events`. Every value is escaped: names and labels come
/// from kiosks.
struct FleetOverviewPage: Sendable {
    /// The admin signed in.
    var username: String
    /// The session's CSRF token, for the sign-out form.
    var csrf: String
    /// The kiosks shown.
    var kiosks: [FleetKioskView]
    /// The hub's clock now.
    var now: Date

    /// The page's HTML.
    var html: String {
        var counts: [String: Int] = [:]
        for kiosk in kiosks { counts[kiosk.presence, default: 0] += 1 }
        let summary = FleetFilter.knownStates.compactMap { state in counts[state].map { "\($0) \(state)" } }.joined(separator: " · ")
        let rows = kiosks.map(row).joined(separator: "\n")
        return FleetHTML.page(
            title: "storybridge fleet", scripts: ["/fleet/static/fleet.js"],
            body: """
                <header>
                <h1>Fleet</h1>
                <p>Signed in as \(FleetHTML.escape(username)).</p>
                <form method="post" action="/fleet/logout"><input type="hidden" name="csrf" value="\(FleetHTML.escape(csrf))"><button type="submit">Sign out</button></form>
                </header>
                <main>
                <p id="summary">\(FleetHTML.escape(summary.isEmpty ? "no kiosks" : summary))</p>
                <table id="kiosks">
                <thead><tr><th>State</th><th>Name</th><th>Labels</th><th>Decks</th><th>Plays now</th><th>Queue</th><th>Last sync</th><th>Version</th><th>Last beat</th></tr></thead>
                <tbody>
                \(rows)
                </tbody>
                </table>
                </main>
                """)
    }

    private func row(_ kiosk: FleetKioskView) -> String {
        let state = "\(kiosk.presence) · \(Self.age(now.timeIntervalSince(kiosk.since)))"
        let labels = kiosk.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let decks = (kiosk.decks ?? []).map { deck in "\(deck.id) r\(deck.revision.map(String.init) ?? "?")" }.joined(separator: ", ")
        let queue = kiosk.analytics.map { analytics in
            "\(analytics.queued)" + (analytics.oldestAgeSeconds.map { " · oldest \(Self.age(TimeInterval($0)))" } ?? "")
        }
        let sync = kiosk.sync.flatMap { sync in
            sync.lastRunAt.map { at in
                "\(sync.result ?? "?")\(sync.exitStatus.map { " \($0)" } ?? "") · \(Self.age(now.timeIntervalSince(at))) ago"
            }
        }
        let beat = kiosk.lastBeatAt.map { "\(Self.age(now.timeIntervalSince($0))) ago" }
        let cells = [
            state, kiosk.name, labels, decks, Self.playsNow(kiosk.schedule), queue ?? "", sync ?? "", kiosk.version ?? "", beat ?? "never",
        ]
        let link = "<a href=\"/fleet/kiosks/\(FleetKioskPage.path(kiosk.id))\">\(FleetHTML.escape(kiosk.name))</a>"
        return "<tr data-id=\"\(FleetHTML.escape(kiosk.id))\" data-presence=\"\(FleetHTML.escape(kiosk.presence))\">"
            + cells.enumerated().map { index, text in "<td>\(index == 1 ? link : FleetHTML.escape(text))</td>" }.joined() + "</tr>"
    }

    /// What the schedule plays now, short: `12, slide a.html · weekly`, `nothing · none`, with
    /// `· not installed` when the deck is missing; empty when the beat says nothing
    /// (`fleet.js` writes the same).
    static func playsNow(_ schedule: Beat.ScheduleNow?) -> String {
        guard let schedule else { return "" }
        let what = schedule.presentation.map { "\($0)" + (schedule.slide.map { ", slide \($0)" } ?? "") } ?? "nothing"
        return "\(what) · \(schedule.source)" + (schedule.installed == false ? " · not installed" : "")
    }

    /// `45 s`, `5 min`, `3 h`, `2 d`.
    static func age(_ seconds: TimeInterval) -> String {
        let whole = max(0, Int(seconds))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" }
        if whole < 86_400 { return "\(whole / 3600) h" }
        return "\(whole / 86_400) d"
    }
}
