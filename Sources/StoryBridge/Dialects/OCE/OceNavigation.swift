import Foundation

/// `CLMPlayer.gotoSlide(sequenceId, slideName, animation)`, `goNextSequence()`,
/// `goPreviousSequence()` and a swipe, over the presentation's sequences (their order is the
/// order of the presentation's slides, ``OceDelivery``). Each answers `nil` when it navigated,
/// else the reason it did not (the adapter logs it on the page's console).
enum OceNavigation {
    /// The sequences of `presentation` in order: each folder and its slides, as its slides list them.
    static func sequences(of presentation: Presentation) -> [(folder: String, slides: [String])] {
        var sequences: [(folder: String, slides: [String])] = []
        for slide in presentation.slides {
            let folder = String(slide.name.prefix { $0 != "/" })
            if sequences.last?.folder == folder {
                sequences[sequences.count - 1].slides.append(slide.name)
            } else {
                sequences.append((folder, [slide.name]))
            }
        }
        return sequences
    }

    /// The sequence folder of the slide `slide` (`Intro/01_intro.html` → `Intro`).
    static func folder(of slide: String) -> String { String(slide.prefix { $0 != "/" }) }

    /// The folder a sequence id names: the folder (or `NAME.zip`) itself, exactly, then `oce.json`'s
    /// `sequences` map, then the folder without regard to case.
    static func folder(forSequence id: String, in presentation: Presentation) -> String? {
        let folders = sequences(of: presentation).map(\.folder)
        let name = OceSettings.folderName(id)
        if folders.contains(name) { return name }
        let file = presentation.root.appendingPathComponent(OceSettings.fileName)
        if FileManager.default.isPlainFile(file), let mapped = (try? OceSettings.read(file))?.sequences[id], folders.contains(mapped) {
            return mapped
        }
        return folders.first { $0.lowercased() == name.lowercased() }
    }

    /// The slide `slideName` names in `folder`: its file name (`02_efficacy.html`), without
    /// `.html`, without its number (`efficacy`), then any of those without regard to case.
    static func slide(named slideName: String, in folder: String, of presentation: Presentation) -> String? {
        guard let slides = sequences(of: presentation).first(where: { $0.folder == folder })?.slides else { return nil }
        let wanted = slideName.trimmingSpaces()
        func forms(_ slide: String) -> [String] {
            let file = String(slide.dropFirst(folder.count + 1))
            let base = file.lowercased().hasSuffix(".html") ? String(file.dropLast(5)) : file
            let digits = base.prefix { $0.isASCII && $0.isNumber }
            let bare = !digits.isEmpty && base.dropFirst(digits.count).first == "_" ? String(base.dropFirst(digits.count + 1)) : base
            return [file, base, bare]
        }
        if let exact = slides.first(where: { forms($0).contains(wanted) }) { return exact }
        return slides.first { forms($0).map { $0.lowercased() }.contains(wanted.lowercased()) }
    }

    /// `gotoSlide`: `sequenceId` `null` means the sequence shown, `slideName` `null` its first slide.
    static func goto(_ call: OceCall, context: BridgeContext) async throws -> String? {
        let presentation = try context.currentPresentation()
        let current = context.viewer.latestState.currentSlide.map(Self.folder(of:))
        let sequence: String
        if let id = call.text("sequenceId") {
            if id.lowercased().hasPrefix(OceAssets.prefix) {
                return await OceAssets.open(id, context: context)
            }
            guard let found = Self.folder(forSequence: id, in: presentation) else {
                let known = sequences(of: presentation).map(\.folder).joined(separator: ", ")
                return "no sequence '\(id)' in presentation '\(presentation.name)' (it has \(known); oce.json maps other ids)"
            }
            sequence = found
        } else {
            guard let current else { return "no sequence is shown, and gotoSlide named none" }
            sequence = current
        }
        let target: String
        if let name = call.text("slideName") {
            guard let found = slide(named: name, in: sequence, of: presentation) else {
                return "no slide '\(name)' in sequence '\(sequence)'"
            }
            target = found
        } else {
            guard let first = sequences(of: presentation).first(where: { $0.folder == sequence })?.slides.first else {
                return "sequence '\(sequence)' has no slide"
            }
            target = first
        }
        await context.navigate(to: presentation, slide: target, data: .emptyObject, cause: .go)
        return nil
    }

    /// `goNextSequence` / `goPreviousSequence`: the first slide of the sequence after (before) the one shown.
    static func sequence(forward: Bool, context: BridgeContext) async throws -> String? {
        let presentation = try context.currentPresentation()
        let all = sequences(of: presentation)
        guard let shown = context.viewer.latestState.currentSlide.map(Self.folder(of:)),
            let index = all.firstIndex(where: { $0.folder == shown })
        else { return "no sequence is shown" }
        let target = forward ? index + 1 : index - 1
        guard all.indices.contains(target), let slide = all[target].slides.first else {
            return forward ? "the last sequence is shown" : "the first sequence is shown"
        }
        await context.navigate(to: presentation, slide: slide, data: .emptyObject, cause: .go)
        return nil
    }

    /// A swipe: the next (previous) slide in the presentation's order, across sequences.
    static func swipe(forward: Bool, context: BridgeContext) async throws -> String? {
        let presentation = try context.currentPresentation()
        guard let current = context.viewer.latestState.currentSlide,
            let index = presentation.slides.firstIndex(where: { $0.name == current })
        else { return "no slide is shown" }
        let target = forward ? index + 1 : index - 1
        guard presentation.slides.indices.contains(target) else {
            return forward ? "the last slide is shown" : "the first slide is shown"
        }
        await context.navigate(to: presentation, slide: presentation.slides[target].name, data: .emptyObject, cause: .go)
        return nil
    }
}
