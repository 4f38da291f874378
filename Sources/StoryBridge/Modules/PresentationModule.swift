/// The Presentation module (PROTOCOL.md §5.2) except `closePresentation` (see ``CloseModule``):
/// open another presentation, and read the current one's info, neighbours and history.
struct PresentationModule: BridgeModule {
    package let name = "Presentation"

    package init() {}

    /// Every command but `open` answers from the viewer's state and the library in memory; `open`
    /// asks the viewer (an actor) to navigate, in the page's order.
    package var commands: CommandTable {
        BridgeCommand("open", handler: open)
        BridgeCommand.fromMemory("getPresentationInfo") { _, context in
            let presentation = try context.currentPresentation()
            return [
                "presentationId": .int(presentation.id), "name": .string(presentation.name),
                "shortDescription": .string(presentation.shortDescription),
                "shortdescription": .string(presentation.shortDescription),
                "longDescription": .string(presentation.longDescription), "revision": .int(presentation.revision),
                "status": 1, "order": .int(presentation.order), "slidesCount": .int(presentation.slides.count),
                "mediaFilesCount": .int(presentation.mediaFiles.count),
            ]
        }
        BridgeCommand.fromMemory("getPreviousSlide") { _, context in
            ["slide": .string(try previousSlide(context))]
        }
        BridgeCommand.fromMemory("getNextSlide") { _, context in
            ["slide": .string(try nextSlide(context))]
        }
        BridgeCommand.fromMemoryWritten("getCurrentSlideName") { _, context in
            // The viewer keeps the answer written for the slide shown.
            guard let answer = context.viewer.currentSlideNameAnswer() else {
                throw BridgeError.refused("No slide is shown in this viewer yet")
            }
            return answer
        }
        BridgeCommand.fromMemory("getBackForwardList") { _, context in
            .array(context.viewer.latestState.history.map(JSONValue.string))
        }
        BridgeCommand.fromMemory("getPresentations") { _, context in
            .array(context.library.all.map(Self.summary))
        }
        BridgeCommand.fromMemory("getBackForwardPresList") { _, context in
            let opened = context.viewer.latestState.openedPresentations
            return .array(opened.compactMap { context.library.presentation(id: $0) }.map(Self.summary))
        }
    }

    static func summary(_ presentation: Presentation) -> JSONValue {
        ["name": .string(presentation.name), "presId": .int(presentation.id)]
    }

    private func open(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let id = try request.int("presId")
        let slideName = try request.optionalString("slideName")?.trimmingSpaces() ?? ""
        let data = try request.member("data") ?? .emptyObject
        // A deck that cannot be opened: the viewer's chrome says why (the slide stays), and
        // content's callback gets the same message.
        guard let target = context.library.presentation(id: id) else {
            let missing = await context.library.missing(id: id)
            await context.send(.unavailable(missing))
            throw BridgeError.notFound(missing.message)
        }
        guard !target.flags.isLockedOut else {
            await context.send(.unavailable(blocked: target))
            throw BridgeError.blocked(target.lockoutMessage)
        }
        if let reason = target.flags.quarantine {
            await context.send(.unavailable(quarantined: target, reason: reason))
            throw BridgeError.blocked(target.quarantineMessage(reason))
        }
        let slide = slideName.isEmpty ? target.entrySlide : slideName
        guard target.hasSlide(slide) else {
            throw BridgeError.notFound("Slide '\(slide)' not found in presentation \(id)")
        }
        await context.navigate(to: target, slide: slide, data: data == .null ? .emptyObject : data, cause: .open)
        return .emptyObject
    }

    /// The slide's `clm-swipe-previous`, else the slide shown before it in this presentation; in a
    /// Veeva or OCE presentation, the slide before it in the presentation's order.
    private func previousSlide(_ context: BridgeContext) throws -> String {
        let presentation = try context.currentPresentation()
        let state = context.viewer.latestState
        if let current = state.currentSlide, let previous = presentation.neighbour(of: current, offset: -1) { return previous }
        if let current = state.currentSlide, let previous = presentation.slide(named: current)?.metadata.swipePrevious,
            presentation.hasSlide(previous)
        {
            return previous
        }
        if state.history.count >= 2 { return state.history[state.history.count - 2] }
        throw BridgeError.notFound("No previous slide")
    }

    /// The slide's `clm-swipe-next`, else its first child on the map; in a Veeva or OCE
    /// presentation, the slide after it in the presentation's order.
    private func nextSlide(_ context: BridgeContext) throws -> String {
        let presentation = try context.currentPresentation()
        guard let current = context.viewer.latestState.currentSlide, let slide = presentation.slide(named: current) else {
            throw BridgeError.notFound("No next slide")
        }
        if presentation.dialect != .storyclm {
            guard let next = presentation.neighbour(of: current, offset: 1) else { throw BridgeError.notFound("No next slide") }
            return next
        }
        if let next = slide.metadata.swipeNext, presentation.hasSlide(next) { return next }
        if let child = presentation.map.children[current]?.first { return child }
        throw BridgeError.notFound("No next slide")
    }
}
