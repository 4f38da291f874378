import Foundation
import StoryBridge
import StoryBridgeFleet

/// `/fleet/kiosks/{id}` (docs/design/FLEET.md §6): one kiosk's last 24 hours. Its last beat in
/// full (decks, viewers, sync, health problems, log entries, the kiosk browser's idle resets and
/// last input), what its schedule plays now and the schedule it reported (default, weekly windows
/// per day, exceptions of the next 14 days, time zone), the last screenshot with its "Screenshot"
/// button, the newest audit checkpoint the hub holds, the state changes and sync runs of the
/// window, and the ``HistoryPlot`` (as `plot.svg`, refreshed every minute by `kiosk.js`, which
/// also keeps "plays now" and the kiosk browser's figures live from `/fleet/events?kiosk=ID` and
/// drives the button). Every value is escaped: all of it comes from the kiosk.
struct FleetKioskPage: Sendable {
    /// The last screenshot the hub holds of the kiosk (`kiosk_screenshot`, without its PNG).
    struct StoredScreenshot: Sendable {
        /// When the kiosk took it (ISO 8601, as the kiosk wrote it).
        var takenAt: String
        var width: Int
        var height: Int
        /// When the hub stored it.
        var receivedAt: Date
    }

    /// The admin signed in.
    var username: String
    /// The session's CSRF token, for the sign-out form and the screenshot button.
    var csrf: String
    /// The kiosk with its last beat and hello.
    var kiosk: FleetKioskView
    /// Its last 24 hours.
    var history: FleetHistoryView
    /// The newest checkpoint the hub holds: sequence, position, when it arrived.
    var checkpoint: (sequence: Int, position: Int, receivedAt: Date)?
    /// The last screenshot, if the hub holds one.
    var screenshot: StoredScreenshot? = nil
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
        sections.append(kioskBrowser(beat?.kiosk))
        if let health = beat?.health {
            let problems = health.problems.map { "<li>\(FleetHTML.escape($0))</li>" }.joined()
            sections.append(
                "<section><h2>Health</h2><p>\(FleetHTML.escape(health.status))</p>\(problems.isEmpty ? "" : "<ul id=\"problems\">\(problems)</ul>")</section>"
            )
        }
        sections.append(schedule(now: beat?.schedule, reported: hello?.schedule))
        sections.append(screenshotSection())
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
                <main id="kiosk" data-kiosk="\(FleetHTML.escape(kiosk.id))" data-csrf="\(FleetHTML.escape(csrf))" data-screenshot-at="\(FleetHTML.escape(kiosk.lastScreenshotAt.map(FleetWire.format) ?? ""))">
                \(sections.joined(separator: "\n"))
                </main>
                """)
    }

    /// What plays now (from the last beat; `kiosk.js` keeps it live), and the schedule the kiosk
    /// reported in its hello: the default, the weekly windows per day, the exceptions of the next
    /// 14 days and the time zone.
    private func schedule(now playing: Beat.ScheduleNow?, reported: JSONValue?) -> String {
        var html = "<section id=\"schedule\"><h2>Schedule</h2><p id=\"playing\">\(FleetHTML.escape(Self.playing(playing)))</p>"
        guard let reported, reported != .null else { return html + "<p id=\"no-schedule\">The kiosk reported no schedule.</p></section>" }
        func text(_ value: JSONValue?) -> String {
            switch value {
            case .string(let text): text
            case .int(let number): "\(number)"
            case .array(let items): items.map { text($0) }.joined(separator: ", ")
            case nil, .null: "—"
            default: value.map { $0.jsonString() } ?? "—"
            }
        }
        /// `presentation 12, slide a.html`.
        func target(_ entry: JSONValue?) -> String {
            guard let entry, entry != .null else { return "nothing switched" }
            let slide = entry["slide"].flatMap { $0 == .null ? nil : text($0) }
            return "presentation \(text(entry["presentation"]))" + (slide.map { ", slide \($0)" } ?? "")
        }
        let zoneName = reported["timeZone"]?.stringValue
        html += "<p id=\"schedule-zone\">Time zone: \(FleetHTML.escape(zoneName ?? "the kiosk's own"))</p>"
        html += "<p id=\"schedule-default\">Default (outside every window): \(FleetHTML.escape(target(reported["default"])))</p>"
        // The weekly windows, one row per day (a window over midnight is listed on its first day).
        let days = [
            ("mon", "Monday"), ("tue", "Tuesday"), ("wed", "Wednesday"), ("thu", "Thursday"), ("fri", "Friday"), ("sat", "Saturday"),
            ("sun", "Sunday"),
        ]
        let weekly = reported["weekly"]?.arrayValue ?? []
        let perDay = days.map { key, name in
            let windows = weekly.filter { entry in (entry["days"]?.arrayValue ?? []).contains { $0.stringValue?.lowercased() == key } }
                .sorted { text($0["from"]) < text($1["from"]) }
                .map { entry -> String in
                    let (from, to) = (text(entry["from"]), text(entry["to"]))
                    return "\(from)–\(to)\(to <= from ? " (next day)" : "") \(target(entry))"
                }
            return [name, windows.isEmpty ? "— (the default)" : windows.joined(separator: "; ")]
        }
        // Exceptions of the next 14 days, in the schedule's zone (dates as `YYYY-MM-DD` compare as text).
        let zone = zoneName.flatMap(TimeZone.init(identifier:)) ?? .current
        let (today, last) = (Self.day(now, zone), Self.day(now.addingTimeInterval(14 * 86_400), zone))
        var exceptions: [[String]] = []
        for entry in reported["exceptions"]?.arrayValue ?? [] {
            guard let date = entry["date"]?.stringValue, date >= today, date <= last else { continue }
            let windows = entry["windows"]?.arrayValue ?? []
            if windows.isEmpty { exceptions.append([date, "all day", "", "the default", ""]) }
            for window in windows {
                exceptions.append([date, text(window["from"]), text(window["to"]), text(window["presentation"]), text(window["slide"])])
            }
        }
        html += Self.table("Weekly", ["Day", "Windows"], perDay, level: 3, id: "schedule-weekly")
        html += Self.table(
            "Exceptions of the next 14 days", ["Date", "From", "To", "Presentation", "Slide"], exceptions, level: 3,
            id: "schedule-exceptions")
        return html + "</section>"
    }

    /// `Now: presentation 12, slide a.html (weekly) until …`: what the beat's `schedule` says plays
    /// now (`kiosk.js` writes the same text from `/fleet/events`).
    static func playing(_ playing: Beat.ScheduleNow?) -> String {
        guard let playing else { return "Now: not reported (no schedule, or no beat yet)" }
        let what = playing.presentation.map { "presentation \($0)" + (playing.slide.map { ", slide \($0)" } ?? "") } ?? "nothing switched"
        let missing = playing.installed == false ? " (not installed on the kiosk)" : ""
        let until = playing.until.map { " until \(FleetWire.format($0))" } ?? ""
        return "Now: \(what)\(missing) (\(playing.source))\(until)"
    }

    /// The kiosk browser's figures from the beat's `kiosk` part (idle resets, last input), hidden
    /// while the beat has none; `kiosk.js` fills it from `/fleet/events`.
    private func kioskBrowser(_ status: Beat.KioskStatus?) -> String {
        let values = Self.kioskBrowserValues(status)
        let items = [
            ("Attached", "kiosk-attached"), ("Mode", "kiosk-mode"), ("Browser restarts", "kiosk-restarts"), ("Idle resets", "idle-resets"),
            ("Last input", "last-input"),
        ].enumerated().map { index, pair in
            "<dt>\(FleetHTML.escape(pair.0))</dt><dd id=\"\(pair.1)\">\(FleetHTML.escape(values[index]))</dd>"
        }.joined()
        return "<section id=\"kiosk-browser\"\(status == nil ? " hidden" : "")><h2>Kiosk browser</h2><dl>\(items)</dl></section>"
    }

    /// Attached, mode, browser restarts, idle resets and last input, as the page shows them.
    static func kioskBrowserValues(_ status: Beat.KioskStatus?) -> [String] {
        guard let status else { return ["—", "—", "—", "—", "—"] }
        let input =
            status.lastInputSecondsAgo.map { "\(FleetOverviewPage.age(TimeInterval($0))) before the last beat" }
            ?? "none since the kiosk started"
        return [status.attached ? "yes" : "no", status.mode ?? "—", "\(status.browserRestarts)", "\(status.idleResets)", input]
    }

    /// The last screenshot (an `<img>` of `screenshot.png`, hidden while there is none) and the
    /// "Screenshot" button `kiosk.js` drives.
    private func screenshotSection() -> String {
        let id = Self.path(kiosk.id)
        var html = "<section id=\"screenshot-section\"><h2>Screenshot</h2>"
        html +=
            "<p><button type=\"button\" id=\"screenshot-button\">Screenshot</button> <span id=\"screenshot-status\" role=\"status\"></span></p>"
        if let screenshot {
            let taken = Self.taken(screenshot.takenAt, width: screenshot.width, height: screenshot.height)
            let stamp = Int((screenshot.receivedAt.timeIntervalSince1970 * 1000).rounded())
            html += "<p id=\"screenshot-taken\">\(FleetHTML.escape(taken))</p>"
            html +=
                "<figure><img id=\"screenshot\" src=\"/fleet/kiosks/\(id)/screenshot.png?t=\(stamp)\" width=\"\(min(screenshot.width, Self.screenshotWidth))\" alt=\"the kiosk's last screenshot\"></figure>"
        } else {
            html += "<p id=\"screenshot-taken\">No screenshot yet.</p>"
            html += "<figure><img id=\"screenshot\" hidden alt=\"the kiosk's last screenshot\"></figure>"
        }
        return html + "</section>"
    }

    /// The widest the page shows a screenshot (`kiosk.js` uses the same).
    static let screenshotWidth = 720

    /// `Taken 2026-…Z by the kiosk's clock · 800×600` (`kiosk.js` writes the same).
    static func taken(_ takenAt: String, width: Int, height: Int) -> String {
        "Taken \(takenAt) by the kiosk's clock · \(width)×\(height)"
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
    private static func table(_ title: String, _ headers: [String], _ rows: [[String]], level: Int = 2, id: String? = nil) -> String {
        let heading = "<h\(level)>\(FleetHTML.escape(title))</h\(level)>"
        guard !rows.isEmpty else { return (level == 2 ? "<section>" : "") + heading + "<p>none</p>" + (level == 2 ? "</section>" : "") }
        let head = headers.map { "<th>\(FleetHTML.escape($0))</th>" }.joined()
        let body = rows.map { row in "<tr>" + row.map { "<td>\(FleetHTML.escape($0))</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        let table = "\(heading)<table\(id.map { " id=\"\($0)\"" } ?? "")><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table>"
        return level == 2 ? "<section>\(table)</section>" : table
    }

    /// A device id for a URL path (ids are `d_` and base32, but escaped all the same).
    static func path(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "_-"))) ?? ""
    }
}
