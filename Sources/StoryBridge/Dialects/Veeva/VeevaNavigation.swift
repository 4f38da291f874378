/// `gotoSlide(keyMessage[, presentation])`, `gotoSlideV2`, `nextSlide()` and `prevSlide()`: the
/// presentation's order is its slides' order (``VeevaKeyMessageOrder``), so after a jump
/// `prevSlide` goes to the slide before the one shown, not back to where the jump came from.
enum VeevaNavigation {
    static func goto(_ request: VeevaRequest, context: BridgeContext) async throws -> JSONValue? {
        let arguments = request.subject.split(separator: ",", maxSplits: 1).map { String($0).trimmingSpaces() }
        guard let keyMessage = arguments.first, !keyMessage.isEmpty else {
            return VeevaModule.failure(request.function, "no key message named")
        }
        var presentation = try context.currentPresentation()
        if arguments.count == 2, !arguments[1].isEmpty {
            let wanted = arguments[1]
            guard
                let other = context.library.all.first(where: {
                    $0.dialect == .veeva && ($0.name == wanted || String($0.id) == wanted || $0.root.lastPathComponent == wanted)
                })
            else { return VeevaModule.failure(request.function, "no presentation '\(wanted)' in the library") }
            presentation = other
        }
        guard let slide = VeevaDelivery.slide(forKeyMessage: keyMessage, in: presentation) else {
            return VeevaModule.failure(request.function, "no key message '\(keyMessage)' in presentation '\(presentation.name)'")
        }
        await context.navigate(to: presentation, slide: slide, data: .emptyObject, cause: .go)
        return nil
    }

    static func step(forward: Bool, context: BridgeContext) async throws -> JSONValue? {
        let presentation = try context.currentPresentation()
        let function = forward ? "nextSlide" : "prevSlide"
        guard let current = context.viewer.latestState.currentSlide,
            let index = presentation.slides.firstIndex(where: { $0.name == current })
        else { return VeevaModule.failure(function, "no key message is shown") }
        let target = forward ? index + 1 : index - 1
        guard presentation.slides.indices.contains(target) else {
            return VeevaModule.failure(function, forward ? "the last key message is shown" : "the first key message is shown")
        }
        await context.navigate(to: presentation, slide: presentation.slides[target].name, data: .emptyObject, cause: .go)
        return nil
    }
}
