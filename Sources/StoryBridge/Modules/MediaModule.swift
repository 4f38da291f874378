import Foundation

/// The Media files module (§5.4): list the presentation's media, open one or the library in the
/// viewer's overlay, and answer only when the viewer closes it.
struct MediaModule: BridgeModule {
    package let name = "Media"

    package init() {}

    /// Opening a file or the library waits for the viewer to close it: those run on their own task,
    /// without a deadline, so the page's other requests go on meanwhile.
    package var commands: CommandTable {
        BridgeCommand("getMediaFiles") { _, context in
            let presentation = try context.currentPresentation()
            return .array(presentation.mediaFiles.map { ["title": .string($0.title), "fileName": .string($0.fileName)] })
        }
        BridgeCommand("openMediaFile", .concurrent(.unlimited), handler: openMediaFile)
        BridgeCommand("openMediaLibrary", .concurrent(.unlimited), handler: openMediaLibrary)
        BridgeCommand("hideMediaLibraryBtn") { _, context in
            await changeChrome(context) { $0.mediaLibraryButton = false }
        }
        BridgeCommand("showMediaLibraryBtn") { _, context in
            await changeChrome(context) { $0.mediaLibraryButton = true }
        }
    }

    private func openMediaFile(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let name = try request.string("name")
        // storyclm.js sends -1 (or nothing) for the current presentation.
        var id = -1
        if let raw = try request.member("id"), raw != .null { id = try request.int("id") }
        let presentation = try context.presentation(id: id <= 0 ? -1 : id)
        guard let file = presentation.mediaFiles.first(where: { $0.fileName == name }) else {
            throw BridgeError.notFound("File not found: '\(name)' in presentation \(presentation.id)")
        }
        let prompt = "media-\(UUID().uuidString)"
        var data = Self.describe(file, presentationId: presentation.id)
        if case .object(var members) = data {
            members["prompt"] = .string(prompt)
            data = .object(members)
        }
        let opened = context.sessions.clock.now
        await context.send(HostEvent(name: "openMedia", data: data))
        _ = await context.viewer.prompts.answer(to: prompt)
        try await context.sessions.mediaViewed(
            context.viewer, presentationId: presentation.id, fileName: file.fileName, opened: opened)
        return ["name": .string(file.fileName), "status": "close"]
    }

    private func openMediaLibrary(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let presentation = try context.currentPresentation()
        let prompt = "library-\(UUID().uuidString)"
        await context.send(
            HostEvent(
                name: "openMediaLibrary",
                data: [
                    "prompt": .string(prompt),
                    "files": .array(presentation.mediaFiles.map { Self.describe($0, presentationId: presentation.id) }),
                ]))
        _ = await context.viewer.prompts.answer(to: prompt)
        return ["status": "close"]
    }

    /// A media file as the viewer chrome shows it: title, name, URL and kind.
    package static func describe(_ file: MediaFile, presentationId: Int) -> JSONValue {
        let ext = (file.fileName as NSString).pathExtension.lowercased()
        let kind: String
        switch ext {
        case "pdf": kind = "pdf"
        case "mp3", "wav", "ogg": kind = "audio"
        default: kind = "video"
        }
        let encoded = file.fileName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? file.fileName
        return [
            "title": .string(file.title), "fileName": .string(file.fileName), "kind": .string(kind),
            "url": .string("\(ContentPaths.presentationPrefix)\(presentationId)/mediafiles/\(encoded)"),
        ]
    }
}
