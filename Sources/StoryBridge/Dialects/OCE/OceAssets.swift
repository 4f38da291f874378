import Foundation

/// OCE assets: files named `oceasset_⟨name⟩` (PDFs, in the public content template) that a
/// sequence carries beside its slides and content opens with `CLMPlayer.gotoSlide('oceasset_⟨name⟩',
/// null, null)`. storybridge shows the file in the viewer's media overlay, as the app shows it over
/// the presentation; when the viewer closes it, the page reports how long it was shown
/// (`oce.assetViewed`) and the view is recorded as a media view of the session.
enum OceAssets {
    /// How an asset's name starts (compared without regard to case).
    static let prefix = "oceasset_"
    /// The command the page sends when the overlay of an asset closes.
    static let viewedCommand = "oce.assetViewed"

    /// The file of asset `id` in `presentation`: a file of a sequence folder whose name, with or
    /// without its extension, is `id` (exactly, then without regard to case); sequences in the
    /// presentation's order. Its path is relative to the presentation's folder.
    static func file(_ id: String, in presentation: Presentation) -> String? {
        let wanted = id.trimmingSpaces()
        guard !wanted.contains("/"), !wanted.contains("\\") else { return nil }
        var candidates: [String] = []
        for sequence in OceNavigation.sequences(of: presentation) {
            let folder = presentation.root.appendingPathComponent(sequence.folder)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for file in files.sorted()
            where file.lowercased().hasPrefix(prefix)
                && FileManager.default.isPlainFile(folder.appendingPathComponent(file))
            {
                candidates.append("\(sequence.folder)/\(file)")
            }
        }
        func names(_ path: String) -> [String] {
            let file = String(path.split(separator: "/").last ?? "")
            return [file, (file as NSString).deletingPathExtension]
        }
        return candidates.first { names($0).contains(wanted) }
            ?? candidates.first { names($0).map { $0.lowercased() }.contains(wanted.lowercased()) }
    }

    /// Opens asset `id` in the viewer's media overlay; `nil` when shown, else why not.
    static func open(_ id: String, context: BridgeContext) async -> String? {
        let presentation: Presentation
        do {
            presentation = try context.currentPresentation()
        } catch {
            return "no presentation is shown"
        }
        guard let path = file(id, in: presentation) else {
            return "no asset '\(id)' in presentation '\(presentation.name)' (an asset is a file named oceasset_… in a sequence)"
        }
        let ext = (path as NSString).pathExtension.lowercased()
        let kind = ["mp4", "webm", "ogg", "mov"].contains(ext) ? "video" : ["mp3", "wav"].contains(ext) ? "audio" : "pdf"
        await context.send(
            HostEvent(
                name: "openMedia",
                data: [
                    "title": .string(id), "fileName": .string(path), "kind": .string(kind),
                    "url": .string(ContentPaths.slideURL(presentationId: presentation.id, slide: path)),
                    "report": .string(viewedCommand),
                ]))
        return nil
    }
}

extension OceAssets {
    /// `oce.assetViewed {fileName, seconds}`: the overlay of an asset was closed after `seconds`;
    /// recorded as a media view of the session (at most a day, as the media library's views).
    static func viewed(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let fileName = try request.string("fileName")
        guard let seconds = try request.member("seconds")?.doubleValue, seconds.isFinite, seconds >= 0 else {
            throw BridgeError.invalidData(field: "seconds", reason: "must be a number of seconds, 0 or more")
        }
        let presentation = try context.currentPresentation()
        let name = String(fileName.split(separator: "/").last ?? "")
        guard file(name, in: presentation) == fileName else {
            throw BridgeError.notFound("No asset '\(fileName)' in presentation \(presentation.id)")
        }
        let opened = context.sessions.clock.now.addingTimeInterval(-min(seconds, ViewerChromeModule.longestMediaView))
        try await context.sessions.mediaViewed(context.viewer, presentationId: presentation.id, fileName: fileName, opened: opened)
        return .emptyObject
    }
}
