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
    static func scriptLiteral(_ json: String) -> String {
        json.replacingOccurrences(of: "</", with: "<\\/").replacingOccurrences(of: "<!--", with: "<\\!--")
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028").replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}
