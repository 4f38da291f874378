import Foundation
import Logging

/// What a module gets besides the request: the viewer who sent it, the presentations, the host's
/// identity values, a logger, and a way to push events to the page.
public struct BridgeContext: Sendable {
    /// The viewer (browser tab) that sent the request.
    public let viewer: Viewer
    /// The presentations the host can show.
    public let library: PresentationLibrary
    /// User, device and location values.
    public let identity: HostIdentity
    /// How questions to the user are answered.
    public let policy: ViewerPolicy
    /// The analytics of viewers' sessions.
    public let sessions: SessionTracker
    /// A logger with the viewer's id in its metadata.
    public let logger: Logger
    /// Whether ``logger`` writes a line per request (debug level), read once here rather than from
    /// the logger's handler at every request.
    let logsEachRequest: Bool

    /// Creates a context.
    public init(
        viewer: Viewer, library: PresentationLibrary, identity: HostIdentity, policy: ViewerPolicy,
        sessions: SessionTracker, logger: Logger
    ) {
        self.viewer = viewer
        self.library = library
        self.identity = identity
        self.policy = policy
        self.sessions = sessions
        self.logger = logger
        logsEachRequest = logger.logLevel <= .debug
    }

    /// Pushes an event to the viewer's page.
    public func send(_ event: HostEvent) async {
        await viewer.send(event)
    }

    /// The presentation the viewer shows; 400 before any slide has loaded. It reads memory only
    /// (the viewer's last state and the library), so a memory command may call it.
    public func currentPresentation() throws(BridgeError) -> Presentation {
        guard let id = viewer.latestState.presentationId else {
            throw .refused("No presentation is open in this viewer yet")
        }
        guard let presentation = library.presentation(id: id) else {
            throw .notFound("Presentation \(id) is no longer in the library")
        }
        return presentation
    }

    /// The presentation with `id`, where `-1` means the current one; 404 when absent. It reads
    /// memory only.
    public func presentation(id: Int) throws(BridgeError) -> Presentation {
        if id == -1 { return try currentPresentation() }
        guard let presentation = library.presentation(id: id) else {
            throw .notFound("Presentation \(id) not found")
        }
        return presentation
    }

    /// Sends the viewer's chrome flags to its page.
    public func publishChrome(_ flags: ChromeFlags) async {
        await viewer.send(HostEvent(name: "chrome", data: flags.json))
    }

    /// Asks the page to load `slide` of `presentation`, handing it `data` as navigation data.
    public func navigate(
        to presentation: Presentation, slide: String, data: JSONValue, cause: NavigationCause
    ) async {
        await viewer.expectNavigation(
            PendingNavigation(presentationId: presentation.id, slide: slide, data: data, cause: cause))
        await viewer.send(
            .navigate(
                presentationId: presentation.id, slide: slide, url: ContentPaths.slideURL(presentationId: presentation.id, slide: slide),
                data: data))
    }
}

/// The URL layout the host serves content under.
public enum ContentPaths {
    /// The reserved prefix for the host's own files and endpoints.
    public static let reservedPrefix = "/__storybridge/"
    /// The prefix of presentation content: `/p/<presId>/<file>`.
    public static let presentationPrefix = "/p/"

    /// The URL path of a slide of a presentation.
    public static func slideURL(presentationId: Int, slide: String) -> String {
        let encoded = slide.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? slide
        return "\(presentationPrefix)\(presentationId)/\(encoded)"
    }
}
