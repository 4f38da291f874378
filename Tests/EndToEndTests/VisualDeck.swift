import Foundation

/// A deck written by a test for the screenshot and visual-diff tests: slides of plain coloured
/// blocks (no text, so no font rendering differences can creep in), linked from `index.html`.
struct VisualDeck {
    /// Slide name to its HTML.
    var slides: [String: String]
    /// Other files (path inside the deck to content).
    var files: [String: String] = [:]

    /// A static slide: one block of `colour` on a white page, with `links` in its meta tags.
    static func block(_ colour: String, links: [String] = [], script: String = "") -> String {
        """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8">
        <meta name="clm" content="\(links.joined(separator: ","))">
        <style>html,body{margin:0;background:#fff}#block{position:absolute;left:100px;top:80px;width:400px;height:300px;background:\(colour)}</style>
        \(script)
        </head><body><div id="block"></div></body></html>
        """
    }

    /// `count` slides `slide1.html`... each a block of its own colour, all linked from `index.html`.
    static func generated(count: Int) -> VisualDeck {
        var slides: [String: String] = [:]
        let names = (1...count).map { "slide\($0).html" }
        slides["index.html"] = block("#333", links: names)
        for (number, name) in names.enumerated() {
            slides[name] = block("rgb(\(number * 37 % 256), \(number * 91 % 256), \(number * 53 % 256))")
        }
        return VisualDeck(slides: slides)
    }

    /// Writes the deck into a new temporary folder and returns it.
    func write() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-visual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, html) in slides.merging(files, uniquingKeysWith: { first, _ in first }) {
            let file = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try html.write(to: file, atomically: true, encoding: .utf8)
        }
        return folder
    }
}
