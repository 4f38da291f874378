import Foundation
import StoryBridge

/// What `storybridge shots` wrote: one entry per slide, in the order they were taken, saved as
/// `index.json` next to the PNGs (and shown by `index.html`).
package struct ShotsIndex: Sendable, Codable, Hashable {
    /// One slide's screenshot.
    package struct Entry: Sendable, Codable, Hashable {
        /// The slide's file name, e.g. `index.html`.
        package var slide: String
        /// The slide's title from its meta tags, if it has one.
        package var title: String?
        /// The PNG's file name inside the output folder.
        package var image: String
        /// Milliseconds from navigation to the screenshot written.
        package var milliseconds: Int
        /// Bridge commands the slide sent and that were not answered before the settle timeout.
        package var unansweredCommands: [String]
        /// Animations still running after the animation limit, ended so the picture is stable.
        package var animationsEnded: Int
    }

    package var presentationId: Int
    package var presentationName: String
    package var revision: Int
    package var size: ViewportSize
    package var slides: [Entry]
    /// Milliseconds for the whole run, browser start excluded.
    package var milliseconds: Int

    /// The entry of `slide`, if it was taken.
    package func entry(for slide: String) -> Entry? { slides.first { $0.slide == slide } }

    /// The index's file name inside an output folder.
    package static let fileName = "index.json"

    /// Reads the index of an output folder.
    package static func read(from folder: URL) throws -> ShotsIndex {
        try JSONDecoder().decode(ShotsIndex.self, from: Data(contentsOf: folder.appendingPathComponent(fileName)))
    }

    func write(to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: folder.appendingPathComponent(Self.fileName), options: .atomic)
        try galleryHTML.write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    }

    /// A page that shows every screenshot with its slide name, linking to the PNGs beside it.
    var galleryHTML: String {
        let tiles = slides.map { entry in
            let name = HTMLText.escape(entry.slide)
            let title = entry.title.map { " — " + HTMLText.escape($0) } ?? ""
            return """
                <figure><a href="\(HTMLText.escape(entry.image))"><img src="\(HTMLText.escape(entry.image))" alt="\(name)" \
                width="\(size.width / 4)" height="\(size.height / 4)"></a><figcaption>\(name)\(title)</figcaption></figure>
                """
        }
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>\(HTMLText.escape(presentationName)) — revision \(revision)</title>
            <style>body{font:14px sans-serif;margin:1em}figure{display:inline-block;margin:.5em;vertical-align:top}\
            img{border:1px solid #ccc}figcaption{max-width:\(size.width / 4)px;overflow-wrap:anywhere}</style></head>
            <body><h1>\(HTMLText.escape(presentationName)) — revision \(revision), \(slides.count) slides at \(size)</h1>
            \(tiles.joined(separator: "\n"))
            </body></html>
            """
    }
}
