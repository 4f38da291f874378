import Logging
import StoryBridge

/// The inline script that hands a slide its Story context before any content script runs
/// (docs/PROTOCOL.md §9): `window._story = {…}`, the presentation's current context as the
/// host has it when it serves the slide. It goes right after the client's tag, so `context.js`
/// (or any content script) finds `window._story` filled when it first reads it. Changes after
/// that reach the page as `storyChange` events. The element's attributes carry the state's version
/// and revision (§9.5).
enum StoryContextScript {
    /// The `<script>` element for a slide of `presentation`. When the context cannot be read (a
    /// refused `story-context.json`, a storage failure) the page still gets the objects the host
    /// fills, and the reason is logged.
    static func tag(for presentation: Presentation, host: StoryBridgeHost) async -> Element {
        let story: StoryContextService.PageStory
        do {
            story = try await host.storyContext.pageStory(for: presentation)
        } catch {
            host.logger.error(
                "story context: the slide gets only the host's objects",
                metadata: ["presentation": "\(presentation.id)", "error": "\(error)"])
            let text = StoryContext().story(filled: host.storyContext.hostObjects(for: presentation)).jsonString()
            story = .init(
                text: text, revision: host.storyContext.currentRevision(presentationId: presentation.id),
                version: StoryContextService.version(ofStoryText: text))
        }
        // The revision and version go back to the host when the page's socket opens (a page that
        // missed a push meanwhile is sent the current state) and order the pushes that follow.
        return Element(
            tag: "<script data-storybridge-story=\"\(story.version)\" data-storybridge-story-revision=\"\(story.revision)\">"
                + "window._story=\(scriptLiteral(story.text));</script>",
            version: story.version, revision: story.revision)
    }

    /// The element, and the state's version and revision it carries (which the client's own tag
    /// carries too: the client runs, and opens its socket, before this element is parsed).
    struct Element {
        let tag: String
        let version: String
        let revision: Int
    }

    /// JSON text that can stand inside a `<script>` element: no `</` (which would close the
    /// element) and no `<!--`, and no line or paragraph separators.
    /// One pass over the UTF-8 bytes (it runs for every slide served; Foundation's
    /// `replacingOccurrences` cost about a tenth of the slide's response).
    static func scriptLiteral(_ json: String) -> String {
        let bytes = Array(json.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "<") || $0 == 0xE2 }) else { return json }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                result.append(contentsOf: "<\\/".utf8)
                index += 2
            } else if byte == UInt8(ascii: "<"), bytes[index...].starts(with: "<!--".utf8) {
                result.append(contentsOf: "<\\!--".utf8)
                index += 4
            } else if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9
            {
                result.append(contentsOf: (bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index += 3
            } else {
                result.append(byte)
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
