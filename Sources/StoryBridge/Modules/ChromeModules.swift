import Foundation

/// The UI module (§5.3): hides host chrome buttons.
struct UIModule: BridgeModule {
    package let name = "UI"

    package init() {}

    /// Both commands change the viewer's chrome flags (on the viewer, an actor: ordered).
    package var commands: CommandTable {
        BridgeCommand("hideCloseBtn") { _, context in
            await changeChrome(context) { $0.closeButton = false }
        }
        BridgeCommand("hideSystemBtns") { _, context in
            await changeChrome(context) { flags in
                flags.systemButtons = false
                flags.closeButton = false
                flags.mapButton = false
                flags.mediaLibraryButton = false
            }
        }
    }
}

/// The Map module (§5.3): the presentation's map, and the map button.
struct MapModule: BridgeModule {
    package let name = "Map"

    package init() {}

    /// `getMap` answers from the library and the viewer's state in memory; the map button is
    /// changed on the viewer (an actor: ordered).
    package var commands: CommandTable {
        BridgeCommand.fromMemory("getMap") { _, context in
            try context.currentPresentation().map.json
        }
        BridgeCommand("hideMapBtn") { _, context in
            await changeChrome(context) { $0.mapButton = false }
        }
        BridgeCommand("showMapBtn") { _, context in
            await changeChrome(context) { $0.mapButton = true }
        }
    }
}

/// Changes the viewer's chrome flags, shows them to its page, and answers `{}`.
func changeChrome(_ context: BridgeContext, _ change: @Sendable (inout ChromeFlags) -> Void) async -> JSONValue {
    let flags = await context.viewer.updateChrome(change)
    await context.publishChrome(flags)
    return .emptyObject
}

/// Commands the injected client sends on the viewer's behalf (never content): answers to
/// prompts, navigation from the host's map, the state its chrome shows, and media views of files
/// opened from its media library. Their names start with `storybridge.`.
struct ViewerChromeModule: BridgeModule {
    package let name = "ViewerChrome"

    /// The longest media view recorded from the page's own measurement (a day).
    static let longestMediaView: Double = 86_400

    package init() {}

    /// The state the chrome shows is answered from memory; the others await the viewer (an actor)
    /// or the analytics database, in the page's order.
    package var commands: CommandTable {
        BridgeCommand("storybridge.promptAnswer") { request, context in
            let prompt = try request.string("prompt")
            let value = try request.member("value") ?? .null
            await context.viewer.prompts.resolve(prompt, with: value)
            return .emptyObject
        }
        BridgeCommand("storybridge.mapNavigate", handler: mapNavigate)
        BridgeCommand.fromMemory("storybridge.state", answer: state)
        BridgeCommand("storybridge.mediaViewed", .ordered, handler: mediaViewed)
    }

    private func mapNavigate(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let slide = try request.string("slide")
        let presentation = try context.currentPresentation()
        guard presentation.hasSlide(slide) else {
            throw BridgeError.notFound("Slide '\(slide)' not found in presentation \(presentation.id)")
        }
        await context.navigate(to: presentation, slide: slide, data: .emptyObject, cause: .map)
        return .emptyObject
    }

    private func state(_ request: BridgeRequest, context: BridgeContext) throws -> JSONValue {
        let presentation = try context.currentPresentation()
        let state = context.viewer.latestState
        return [
            "chrome": state.chrome.json, "map": presentation.map.json, "entrySlide": .string(presentation.entrySlide),
            "slides": .array(presentation.slides.map { .string($0.name) }),
            "thumbnails": .object(
                Dictionary(
                    presentation.slides.compactMap { slide in
                        slide.thumbnail.map {
                            (slide.name, JSONValue.string(ContentPaths.slideURL(presentationId: presentation.id, slide: $0)))
                        }
                    }, uniquingKeysWith: { first, _ in first })),
            "mediaFiles": .array(presentation.mediaFiles.map { MediaModule.describe($0, presentationId: presentation.id) }),
            "presentation": PresentationModule.summary(presentation),
        ]
    }

    /// A file opened from the chrome's media library (not through openMediaFile): the page measured
    /// how long it was shown.
    private func mediaViewed(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let fileName = try request.string("fileName")
        guard let seconds = try request.member("seconds")?.doubleValue, seconds.isFinite, seconds >= 0 else {
            throw BridgeError.invalidData(field: "seconds", reason: "must be a number of seconds, 0 or more")
        }
        let presentation = try context.currentPresentation()
        guard presentation.mediaFiles.contains(where: { $0.fileName == fileName }) else {
            throw BridgeError.notFound("File not found: '\(fileName)' in presentation \(presentation.id)")
        }
        let opened = context.sessions.clock.now.addingTimeInterval(-min(seconds, Self.longestMediaView))
        try await context.sessions.mediaViewed(context.viewer, presentationId: presentation.id, fileName: fileName, opened: opened)
        return .emptyObject
    }
}
