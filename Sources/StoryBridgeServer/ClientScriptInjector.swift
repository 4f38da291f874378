import Foundation
import Logging
import NIOCore
import StoryBridge

/// Puts the host's client script into a slide, ahead of every content script.
enum ClientScriptInjector {
    /// The `<script>` tag that loads the client, carrying what it needs to connect. Its URL names
    /// the client's version, so the browser keeps it from one slide to the next instead of asking
    /// the host again before every slide can run a script.
    /// `pageAnswers` names the commands the page may answer itself while its socket connects
    /// (``PageAnswers``); `earlyAnswers` those it may send over HTTP meanwhile (``EarlyAnswers``);
    /// `pageConsole` is the limit at which the client forwards the page's console lines
    /// (`data-page-console="RATE BURST"`); `nil` leaves the page's console alone. `story` is the
    /// version and revision of the Story context the slide is served with (`data-story`,
    /// `data-story-revision`): the client sends them when its socket opens (§9.5), before the
    /// Story context's own element after it is parsed.
    static func tag(
        presentationId: Int, slide: String, token: String, pageAnswers: [String] = [], earlyAnswers: [String] = [],
        pageConsole: ConsoleRateLimit? = nil, story: (version: String, revision: Int)? = nil
    ) -> String {
        "<script src=\"\(EmbeddedScripts.versionedPath("client.js"))\" data-storybridge=\"1\" data-presentation=\"\(presentationId)\""
            + " data-slide=\"\(HTMLText.escape(slide))\" data-token=\"\(HTMLText.escape(token))\""
            + (pageAnswers.isEmpty ? "" : " data-page-answers=\"\(HTMLText.escape(pageAnswers.joined(separator: " ")))\"")
            + (earlyAnswers.isEmpty ? "" : " data-early-answers=\"\(HTMLText.escape(earlyAnswers.joined(separator: " ")))\"")
            + (pageConsole.map { " data-page-console=\"\($0.linesPerSecond) \($0.burst)\"" } ?? "")
            + (story.map { " data-story=\"\(HTMLText.escape($0.version))\" data-story-revision=\"\($0.revision)\"" } ?? "") + "></script>"
    }

    /// The dialect's client adapter (``DialectName/clientAdapter``), loaded right after the client
    /// and ahead of content scripts; empty for StoryCLM.
    static func adapterTag(for dialect: DialectName) -> String {
        guard let adapter = dialect.clientAdapter else { return "" }
        return "<script src=\"\(EmbeddedScripts.versionedPath(adapter))\" data-storybridge-dialect=\"\(dialect)\"></script>"
    }

    /// `html` with `tag` inserted where ``SlidePrologueScanner`` places it, ahead of everything
    /// the slide runs; or `html` unchanged with the reason the client cannot be placed in it.
    /// The bytes are copied once, into the buffer the response is sent from.
    static func inject(_ tag: String, into html: Data) -> Injection {
        html.withUnsafeBytes { bytes in
            switch SlidePrologueScanner.clientOffset(in: bytes) {
            case .success(let offset):
                var body = ByteBuffer()
                body.reserveCapacity(bytes.count + tag.utf8.count)
                body.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[..<offset]))
                body.writeString(tag)
                body.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                return Injection(body: body, problem: nil)
            case .failure(let problem):
                return Injection(body: ByteBuffer(bytes: bytes), problem: problem)
            }
        }
    }

    /// Tells the author that a slide went out without the client: one warning line in the log and
    /// one entry in the inspector, each time the slide is served.
    static func report(_ problem: ClientPlacementProblem, presentationId: Int, slide: String, host: StoryBridgeHost) {
        host.logger.warning(
            "slide served without the client script",
            metadata: ["presentation": "\(presentationId)", "slide": "\(slide)", "reason": "\(problem.message)"])
        host.feed.record(.warning(presentationId: presentationId, slide: slide, message: problem.message))
    }

    /// A slide as served: its bytes, and why the client is missing from them when it is.
    struct Injection {
        /// The slide, with the client unless ``problem`` says why not.
        let body: ByteBuffer
        /// Set when the client could not be placed ahead of the slide's scripts.
        let problem: ClientPlacementProblem?
    }
}
