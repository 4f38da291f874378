import Foundation
import StoryBridge

/// The host's own HTML pages: the library (what `/` shows when several presentations are served),
/// the page a viewer lands on after closing a presentation, and the pages served instead of a
/// presentation that is blocked or not installed.
enum HostPages {
    /// The library page, of the listed presentations (a hidden one, `visibility: false`, still
    /// opens by link); while none is installed (a kiosk whose first sync is still downloading) it
    /// says so and reloads itself every ``emptyLibraryRefreshSeconds``, so the first presentation
    /// that arrives opens without anyone touching the screen.
    static func library(_ library: PresentationLibrary, heading: String = "Presentations") -> String {
        let all = library.all
        let listed = all.filter(\.flags.isListed)
        guard all.isEmpty || !listed.isEmpty else {
            return page(
                title: heading,
                body: """
                    <h1>\(HTMLText.escape(heading))</h1>
                    <p id="all-hidden">The library holds \(all.count) presentation\(all.count == 1 ? "" : "s"), all \
                    hidden by the content service (decks that other presentations open); they open by link.</p>
                    """)
        }
        return self.library(listed, heading: heading)
    }

    private static func library(_ presentations: [Presentation], heading: String) -> String {
        let items = presentations.map { presentation in
            """
            <li><a href="\(ContentPaths.slideURL(presentationId: presentation.id, slide: presentation.entrySlide))" \
            data-presentation="\(presentation.id)">\(HTMLText.escape(presentation.name))</a> \
            <small>#\(presentation.id), \(presentation.slides.count) slides, revision \(presentation.revision)\
            \(presentation.flags.isLockedOut ? ", <strong class=\"blocked\">blocked by the content service</strong>" : "")</small></li>
            """
        }.joined(separator: "\n")
        guard !presentations.isEmpty else {
            return page(
                title: "Waiting for presentations",
                body: """
                    <h1 id="empty-library">No presentation yet</h1>
                    <p>The library is empty: nothing has been installed or downloaded yet. Presentations appear \
                    here as <code>storybridge sync --content</code> finishes downloading them (or after \
                    <code>storybridge install deck.zip</code>). This page checks again every \
                    \(emptyLibraryRefreshSeconds) seconds.</p>
                    """,
                refreshSeconds: emptyLibraryRefreshSeconds)
        }
        return page(title: heading, body: "<h1>\(HTMLText.escape(heading))</h1>\n<ul>\n\(items)\n</ul>")
    }

    /// How often the empty library page reloads itself.
    static let emptyLibraryRefreshSeconds = 5

    static func closed(presentation: Presentation?, outcome: String, all: [Presentation]) -> String {
        let what: String
        switch outcome {
        case "saved": what = "The session was saved."
        case "discarded": what = "The session was not saved."
        default: what = "The presentation was closed."
        }
        let reopen =
            presentation.map {
                "<p><a id=\"reopen\" href=\"\(ContentPaths.slideURL(presentationId: $0.id, slide: $0.entrySlide))\">Open “\(HTMLText.escape($0.name))” again</a></p>"
            } ?? ""
        let others =
            all.isEmpty
            ? ""
            : "<h2>Library</h2><ul>"
                + all.map {
                    "<li><a href=\"\(ContentPaths.slideURL(presentationId: $0.id, slide: $0.entrySlide))\">\(HTMLText.escape($0.name))</a></li>"
                }.joined() + "</ul>"
        return page(
            title: "Presentation closed",
            body: "<h1 id=\"closed\" data-outcome=\"\(HTMLText.escape(outcome))\">Presentation closed</h1><p>\(what)</p>\(reopen)\(others)")
    }

    /// Served instead of a presentation that is not installed: names it and says how to get it.
    static func missing(_ missing: MissingPresentation) -> String {
        page(
            title: "Presentation not installed",
            body: """
                <h1 id="missing-presentation" data-presentation="\(missing.id)">Presentation not installed</h1>
                <p>\(HTMLText.escape(missing.title.prefix(1).uppercased() + missing.title.dropFirst())) is not in this \
                host's library\(missing.catalogName == nil ? "" : " (the content service lists it, but it has not been downloaded)"). \
                Presentations open it when they depend on it; download it with:</p>
                <pre><code>\(HTMLText.escape(missing.command))</code></pre>
                <p>A running <code>storybridge serve</code> of the library picks it up without a restart; \
                then reload this page. <a href="/">All presentations</a></p>
                """)
    }

    /// Served instead of a presentation the content service has blocked (`lockout`).
    static func blocked(_ presentation: Presentation) -> String {
        page(
            title: "Presentation blocked",
            body: """
                <h1 id="blocked-presentation" data-presentation="\(presentation.id)">Presentation blocked</h1>
                <p>“\(HTMLText.escape(presentation.name))” (presentation \(presentation.id)) is blocked by the content \
                service. Its slides are not shown until the service unblocks it and \
                <code>storybridge sync</code> brings the change. <a href="/">All presentations</a></p>
                """)
    }

    /// The page of a deck `storybridge verify` quarantined: its files differ from its manifest.
    static func quarantined(_ presentation: Presentation, reason: String) -> String {
        page(
            title: "Presentation withheld",
            body: """
                <h1 id="quarantined-presentation" data-presentation="\(presentation.id)">Presentation withheld</h1>
                <p>“\(HTMLText.escape(presentation.name))” (presentation \(presentation.id)) failed its integrity check \
                (\(HTMLText.escape(reason))); it will be repaired by the next sync. <a href="/">All presentations</a></p>
                """)
    }

    private static func page(title: String, body: String, refreshSeconds: Int? = nil) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
        \(refreshSeconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? "")
        <title>\(HTMLText.escape(title)) · storybridge</title>
        <style>body{font:16px/1.5 system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 16px;color:#1b1f24}
        a{color:#0645ad} small{color:#667}</style></head>
        <body>\(body)</body></html>
        """
    }
}
