import Foundation
import StoryBridge
import StoryBridgeFleet

/// `/fleet/kiosks/{id}` (docs/design/FLEET.md §6): one kiosk's last 24 hours. Its last beat in
/// full (decks, viewers, sync, health problems, log entries), what its schedule plays now and the
/// schedule it reported, the newest audit checkpoint the hub holds, the state changes and sync
/// runs of the window, and the ``HistoryPlot`` (as `plot.svg`, refreshed every minute by
/// `kiosk.js`). Every value is escaped: all of it comes from the kiosk.
struct FleetKioskPage: Sendable {
    /// The admin signed in.
    var username: String
    /// The session's CSRF token, for the sign-out form.
    var csrf: String
    /// The kiosk with its last beat and hello.
    var kiosk: FleetKioskView
    /// Its last 24 hours.
    var history: FleetHistoryView
    /// The newest checkpoint the hub holds: sequence, position, when it arrived.
    var checkpoint: (sequence: Int, position: Int, receivedAt: Date)?
    /// The hub's clock now.
    var now: Date

    /// The page's HTML.
    var html: String {
        let beat = kiosk.detail?.lastBeat
        let hello = kiosk.detail?.hello
        var sections: [String] = []
        let labels = kiosk.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sections.append(
            Self.facts([
                ("State", "\(kiosk.presence) · since \(FleetOverviewPage.age(now.timeIntervalSince(kiosk.since)))"),
                ("Reported name", kiosk.reportedName ?? "—"), ("Host id", kiosk.hostId.map(HostKey.grouped) ?? "—"),
                ("Labels", labels.isEmpty ? "—" : labels), ("Version", kiosk.version ?? "—"),
                ("Last beat", kiosk.lastBeatAt.map { "\(FleetOverviewPage.age(now.timeIntervalSince($0))) ago" } ?? "never"),
                ("Beat interval", kiosk.intervalSeconds.map { "\($0) s" } ?? "—"),
                ("Uptime", beat.map { FleetOverviewPage.age(TimeInterval($0.uptimeSeconds)) } ?? "—"),
            ]))
        sections.append(
            Self.table(
                "Decks", ["Id", "Name", "Revision", "Pinned", "State"],
                (beat?.decks ?? []).map { deck in
                    [
                        "\(deck.id)", deck.name, deck.revision.map(String.init) ?? "—", deck.pinnedRevision.map(String.init) ?? "—",
                        deck.state,
                    ]
                }))
        sections.append(
            Self.table(
                "Viewers" + (beat?.viewers.map { " (\($0.count))" } ?? ""), ["Viewer", "Connected", "Presentation", "Slide", "Since"],
                (beat?.viewers?.list ?? []).map { viewer in
                    [
                        viewer.viewer, viewer.connected ? "yes" : "no", viewer.presentation.map(String.init) ?? "—", viewer.slide ?? "—",
                        viewer.since.map(FleetWire.format) ?? "—",
                    ]
                }))
        if let sync = beat?.sync {
            sections.append(
                Self.facts(
                    [
                        ("Last run", sync.lastRunAt.map(FleetWire.format) ?? "never"),
                        ("Result", "\(sync.result ?? "—")\(sync.exitStatus.map { " (\($0))" } ?? "")"), ("Summary", sync.summary ?? "—"),
                        ("Failing since", sync.failingSince.map(FleetWire.format) ?? "—"),
                        ("Next run", sync.nextRunAt.map(FleetWire.format) ?? "—"),
                    ], title: "Scheduled sync"))
        }
        if let health = beat?.health {
            let problems = health.problems.map { "<li>\(FleetHTML.escape($0))</li>" }.joined()
            sections.append(
                "<section><h2>Health</h2><p>\(FleetHTML.escape(health.status))</p>\(problems.isEmpty ? "" : "<ul id=\"problems\">\(problems)</ul>")</section>"
            )
        }
        sections.append(schedule(now: beat?.schedule, reported: hello?.schedule))
        sections.append(
            Self.table(
                "Log (last beat)", ["At", "Level", "Message", "Times"],
                (beat?.log.entries ?? []).map { [FleetWire.format($0.at), $0.level, $0.message, "\($0.count)"] }))
        let id = Self.path(kiosk.id)
        let newest =
            checkpoint.map {
                "sequence \($0.sequence) · position \($0.position) · received \(FleetOverviewPage.age(now.timeIntervalSince($0.receivedAt))) ago"
            } ?? "none received"
        sections.append(
            "<section><h2>Audit log</h2><p id=\"checkpoint\">Newest checkpoint: \(FleetHTML.escape(newest))</p>"
                + "<p><a href=\"/v1/fleet/kiosks/\(id)/checkpoints\">The checkpoints the hub holds</a> (JSON, the input of "
                + "<code>storybridge audit verify --checkpoints</code>)</p></section>")
        sections.append(
            "<section><h2>Last 24 hours</h2><figure><img id=\"plot\" src=\"/fleet/kiosks/\(id)/plot.svg\" width=\"\(HistoryPlot.width)\" height=\"\(HistoryPlot.height)\" alt=\"queue and presence over the last 24 hours\"></figure></section>"
        )
        sections.append(
            Self.table(
                "State changes", ["At", "From", "To", "Reason"],
                history.stateChanges.map { [FleetWire.format($0.at), $0.from, $0.to, $0.reason] }))
        sections.append(
            Self.table(
                "Sync runs", ["At", "Result", "Exit status", "Summary"],
                history.syncRuns.map {
                    [FleetWire.format($0.at), $0.result ?? "—", $0.exitStatus.map(String.init) ?? "—", $0.summary ?? "—"]
                }
            ))
        return FleetHTML.page(
            title: "storybridge fleet: \(kiosk.name)", scripts: ["/fleet/static/kiosk.js"],
            body: """
                <header>
                <p><a href="/fleet">Fleet</a></p>
                <h1 id="name">\(FleetHTML.escape(kiosk.name))</h1>
                <p>Signed in as \(FleetHTML.escape(username)).</p>
                <form method="post" action="/fleet/logout"><input type="hidden" name="csrf" value="\(FleetHTML.escape(csrf))"><button type="submit">Sign out</button></form>
                </header>
                <main>
                \(sections.joined(separator: "\n"))
                </main>
                """)
    }

    /// What plays now, and the weekly windows and exceptions the kiosk reported in its hello.
    private func schedule(now playing: Beat.ScheduleNow?, reported: JSONValue?) -> String {
        guard playing != nil || reported != nil else { return "<section><h2>Schedule</h2><p>none</p></section>" }
        var html = "<section><h2>Schedule</h2>"
        if let playing {
            let what =
                playing.presentation.map { "presentation \($0)" + (playing.slide.map { ", slide \($0)" } ?? "") } ?? "nothing switched"
            let until = playing.until.map { " until \(FleetWire.format($0))" } ?? ""
            let missing = playing.installed == false ? " (not installed on the kiosk)" : ""
            html +=
                "<p id=\"playing\">Now: \(FleetHTML.escape(what + missing)) (\(FleetHTML.escape(playing.source)))\(FleetHTML.escape(until))</p>"
        }
        func text(_ value: JSONValue?) -> String {
            switch value {
            case .string(let text): text
            case .int(let number): "\(number)"
            case .array(let items): items.map { text($0) }.joined(separator: ", ")
            case nil, .null: "—"
            default: value.map { $0.jsonString() } ?? "—"
            }
        }
        let weekly = (reported?["weekly"]?.arrayValue ?? []).map { entry in
            [text(entry["days"]), text(entry["from"]), text(entry["to"]), text(entry["presentation"]), text(entry["slide"])]
        }
        // Exceptions of the next 14 days, in the schedule's zone (dates as `YYYY-MM-DD` compare as text).
        let zone = reported?["timeZone"]?.stringValue.flatMap(TimeZone.init(identifier:)) ?? .current
        let (today, last) = (Self.day(now, zone), Self.day(now.addingTimeInterval(14 * 86_400), zone))
        var exceptions: [[String]] = []
        for entry in reported?["exceptions"]?.arrayValue ?? [] {
            guard let date = entry["date"]?.stringValue, date >= today, date <= last else { continue }
            let windows = entry["windows"]?.arrayValue ?? []
            if windows.isEmpty { exceptions.append([date, "all day", "", "the default", ""]) }
            for window in windows {
                exceptions.append([date, text(window["from"]), text(window["to"]), text(window["presentation"]), text(window["slide"])])
            }
        }
        html += Self.table("Weekly", ["Days", "From", "To", "Presentation", "Slide"], weekly, level: 3)
        html += Self.table("Exceptions of the next 14 days", ["Date", "From", "To", "Presentation", "Slide"], exceptions, level: 3)
        if let zone = reported?["timeZone"]?.stringValue { html += "<p>Time zone: \(FleetHTML.escape(zone))</p>" }
        return html + "</section>"
    }

    /// `date`'s day in `zone`, `YYYY-MM-DD`.
    private static func day(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// A `<dl>` of `pairs` in a section titled `title`.
    private static func facts(_ pairs: [(String, String)], title: String = "Kiosk") -> String {
        let items = pairs.map { "<dt>\(FleetHTML.escape($0.0))</dt><dd>\(FleetHTML.escape($0.1))</dd>" }.joined()
        return "<section><h2>\(FleetHTML.escape(title))</h2><dl>\(items)</dl></section>"
    }

    /// A titled table of `rows` (each as many cells as `headers`), or "none".
    private static func table(_ title: String, _ headers: [String], _ rows: [[String]], level: Int = 2) -> String {
        let heading = "<h\(level)>\(FleetHTML.escape(title))</h\(level)>"
        guard !rows.isEmpty else { return (level == 2 ? "<section>" : "") + heading + "<p>none</p>" + (level == 2 ? "</section>" : "") }
        let head = headers.map { "<th>\(FleetHTML.escape($0))</th>" }.joined()
        let body = rows.map { row in "<tr>" + row.map { "<td>\(FleetHTML.escape($0))</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        let table = "\(heading)<table><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table>"
        return level == 2 ? "<section>\(table)</section>" : table
    }

    /// A device id for a URL path (ids are `d_` and base32, but escaped all the same).
    static func path(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "_-"))) ?? ""
    }
}
