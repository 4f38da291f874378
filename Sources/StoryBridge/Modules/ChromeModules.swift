import Foundation
/// The UI module (§5.3): hides host chrome buttons.
public struct UIModule: BridgeModule {
    public let name = "UI"
    public let commands = ["hideCloseBtn", "hideSystemBtns"]

    /// Answers from the viewer's state and the library in memory.
    public var answersImmediately: Bool { true }

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let flags = await context.viewer.updateChrome { flags in
            switch request.command {
            case "hideCloseBtn": flags.closeButton = false
            default:
                flags.systemButtons = false
                flags.closeButton = false
                flags.mapButton = false
                flags.mediaLibraryButton = false
            }
        }
        await context.publishChrome(flags)
        return .emptyObject
    }
}

/// The Map module (§5.3): the presentation's map, and the map button.
public struct MapModule: BridgeModule {
    public let name = "Map"
    public let commands = ["getMap", "hideMapBtn", "showMapBtn"]

    /// Answers from the viewer's state and the library in memory.
    public var answersImmediately: Bool { true }

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        switch request.command {
        case "getMap":
            return try await context.currentPresentation().map.json
        default:
            let show = request.command == "showMapBtn"
            let flags = await context.viewer.updateChrome { $0.mapButton = show }
            await context.publishChrome(flags)
            return .emptyObject
        }
    }
}

/// Commands the injected client sends on the viewer's behalf (never content): answers to
/// prompts, navigation from the host's map, the state its chrome shows, and media views of files
/// opened from its media library. Their names start with `storybridge.`.
public struct ViewerChromeModule: BridgeModule {
    public let name = "ViewerChrome"
    public let commands = ["storybridge.promptAnswer", "storybridge.mapNavigate", "storybridge.state", "storybridge.mediaViewed"]

    /// Answers from the viewer's state and the library in memory, except the media view it records.
    public func answersImmediately(_ command: String) -> Bool { command != "storybridge.mediaViewed" }

    /// The longest media view recorded from the page's own measurement (a day).
    static let longestMediaView: Double = 86_400

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        switch request.command {
        case "storybridge.promptAnswer":
            let prompt = try request.string("prompt")
            let value = try request.member("value") ?? .null
            await context.viewer.prompts.resolve(prompt, with: value)
            return .emptyObject
        case "storybridge.mediaViewed":
            // A file opened from the chrome's media library (not through openMediaFile): the page
            // measured how long it was shown.
            let fileName = try request.string("fileName")
            guard let seconds = try request.member("seconds")?.doubleValue, seconds.isFinite, seconds >= 0 else {
                throw BridgeError.invalidData(field: "seconds", reason: "must be a number of seconds, 0 or more")
            }
            let presentation = try await context.currentPresentation()
            guard presentation.mediaFiles.contains(where: { $0.fileName == fileName }) else {
                throw BridgeError.notFound("File not found: '\(fileName)' in presentation \(presentation.id)")
            }
            let opened = context.sessions.clock.now.addingTimeInterval(-min(seconds, Self.longestMediaView))
            try await context.sessions.mediaViewed(context.viewer, presentationId: presentation.id, fileName: fileName, opened: opened)
            return .emptyObject
        case "storybridge.mapNavigate":
            let slide = try request.string("slide")
            let presentation = try await context.currentPresentation()
            guard presentation.hasSlide(slide) else {
                throw BridgeError.notFound("Slide '\(slide)' not found in presentation \(presentation.id)")
            }
            await context.navigate(to: presentation, slide: slide, data: .emptyObject, cause: .map)
            return .emptyObject
        default:
            let presentation = try await context.currentPresentation()
            let state = await context.viewer.state
            return [
                "chrome": state.chrome.json, "map": presentation.map.json,
                "slides": .array(presentation.slides.map { .string($0.name) }),
                "mediaFiles": .array(presentation.mediaFiles.map { MediaModule.describe($0, presentationId: presentation.id) }),
                "presentation": PresentationModule.summary(presentation),
            ]
        }
    }
}
