/// The size of the browser viewport a slide is rendered in, in CSS pixels (one device pixel each).
package struct ViewportSize: Sendable, Hashable, Codable, CustomStringConvertible {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The iPad's landscape viewport, which StoryCLM decks are made for.
    package static let standard = ViewportSize(width: 1024, height: 768)

    /// Parses `WIDTHxHEIGHT`, e.g. `1024x768`; `nil` when the text is not two positive whole numbers
    /// of at most 8192.
    package init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (1...8192).contains(width), (1...8192).contains(height)
        else { return nil }
        self.init(width: width, height: height)
    }

    package var description: String { "\(width)x\(height)" }
}
