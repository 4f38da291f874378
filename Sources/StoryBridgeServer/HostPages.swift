import Foundation
import StoryBridge

/// The host's own HTML pages: the library (what `/` shows when several presentations are served)
/// and the page a viewer lands on after closing a presentation.
enum HostPages {
    /// The library page; while it is empty (a kiosk whose first sync is still downloading) it
    /// says so and reloads itself every ``emptyLibraryRefreshSeconds``, so the first presentation
    /// that arrives opens without anyone touching the screen.
    static func library(_ presentations: [Presentation], heading: String = "Presentations") -> String {
        let items = presentations.map { presentation in
            """
            <li><a href="\(ContentPaths.slideURL(presentationId: presentation.id, slide: Presentation.startSlide))" \
            data-presentation="\(presentation.id)">\(escape(presentation.name))</a> \
            <small>#\(presentation.id), \(presentation.slides.count) slides, revision \(presentation.revision)</small></li>
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
        return page(title: heading, body: "<h1>\(escape(heading))</h1>\n<ul>\n\(items)\n</ul>")
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
                "<p><a id=\"reopen\" href=\"\(ContentPaths.slideURL(presentationId: $0.id, slide: Presentation.startSlide))\">Open “\(escape($0.name))” again</a></p>"
            } ?? ""
        let others =
            all.isEmpty
            ? ""
            : "<h2>Library</h2><ul>"
                + all.map {
                    "<li><a href=\"\(ContentPaths.slideURL(presentationId: $0.id, slide: Presentation.startSlide))\">\(escape($0.name))</a></li>"
                }.joined() + "</ul>"
        return page(
            title: "Presentation closed",
            body: "<h1 id=\"closed\" data-outcome=\"\(escape(outcome))\">Presentation closed</h1><p>\(what)</p>\(reopen)\(others)")
    }

    private static func page(title: String, body: String, refreshSeconds: Int? = nil) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
        \(refreshSeconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? "")
        <title>\(escape(title)) · storybridge</title>
        <style>body{font:16px/1.5 system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 16px;color:#1b1f24}
        a{color:#0645ad} small{color:#667}</style></head>
        <body>\(body)</body></html>
        """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
