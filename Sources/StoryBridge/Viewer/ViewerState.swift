import Foundation

/// Which buttons of the viewer chrome are shown (changed by the UI, map and media commands).
public struct ChromeFlags: Sendable, Hashable, Codable {
    /// Whether the close button is shown.
    public var closeButton = true
    /// Whether the map button is shown.
    public var mapButton = true
    /// Whether the media library button is shown.
    public var mediaLibraryButton = true
    /// Whether the system buttons are shown.
    public var systemButtons = true

    /// Every button shown.
    public init() {}

    /// The flags as sent to the page in a `chrome` event.
    public var json: JSONValue {
        [
            "closeButton": .bool(closeButton), "mapButton": .bool(mapButton),
            "mediaLibraryButton": .bool(mediaLibraryButton), "systemButtons": .bool(systemButtons),
        ]
    }
}

/// What caused a slide change, as recorded for analytics.
public enum NavigationCause: String, Sendable, Hashable, Codable {
    /// A plain link, `window.location`, a reload: anything the host did not ask for.
    case page
    /// The `go` command.
    case go
    /// The `open` command.
    case open
    /// The host's map.
    case map
    /// A deep link.
    case deepLink
    /// The kiosk's schedule switched decks (``ScheduleSwitcher``).
    case schedule
}

/// A navigation the host has asked the page to perform and which the next page load completes.
public struct PendingNavigation: Sendable, Hashable, Codable {
    /// The presentation to load.
    public var presentationId: Int
    /// The slide to load.
    public var slide: String
    /// The navigation data the slide receives.
    public var data: JSONValue
    /// What asked for the navigation.
    public var cause: NavigationCause

    /// A navigation to `slide` of a presentation, with its data and cause.
    public init(presentationId: Int, slide: String, data: JSONValue, cause: NavigationCause) {
        self.presentationId = presentationId
        self.slide = slide
        self.data = data
        self.cause = cause
    }
}

/// A viewer's navigation state, kept by the host across page loads.
public struct ViewerState: Sendable, Hashable, Codable {
    /// The presentation shown, once the first slide has loaded.
    public var presentationId: Int?
    /// The slide shown.
    public var currentSlide: String?
    /// Slides visited in the current presentation, oldest first, the current one last.
    public var history: [String] = []
    /// The data handed to the current slide by the `go`/`open` that led to it, else `{}`.
    public var navigationData: JSONValue = .emptyObject
    /// What caused the current slide to load.
    public var lastCause: NavigationCause = .page
    /// A navigation asked for and not yet completed by a page load.
    public var pendingNavigation: PendingNavigation?
    /// Presentations shown in this run, in the order first opened.
    public var openedPresentations: [Int] = []
    /// The viewer chrome's buttons.
    public var chrome = ChromeFlags()
    /// The analytics session of the presentation shown.
    public var sessionId: String?
    /// When the current slide was entered (for its slide view's duration).
    public var slideEnteredAt: Date?
    /// The deep link that brought the viewer here, if any.
    package var inboundDeepLink: DeepLink?
    /// The outbound deep link content prepares.
    package var outboundDeepLink = OutboundDeepLink()
    /// How the current slide was reached: `in` (content, go, open) or `out` (the host's map).
    public var slideNavigation = "in"

    /// The state of a viewer that has shown nothing yet.
    public init() {}
}
