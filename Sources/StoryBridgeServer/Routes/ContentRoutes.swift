import Foundation
import Hummingbird
import StoryBridge

/// The presentation side of the HTTP router: `/` (the deep link, the only listed presentation, or
/// the library list), `/p/<id>` (its start slide), and the root slides `/p/<id>/<name>.html`, which
/// are served with the client script injected. Every other file under `/p/` is left to the
/// `FileMiddleware` (see ``PresentationFiles``): these routes answer it "not found" with the
/// message that is shown when the file does not exist either. A presentation that is not
/// installed, or that the content service blocked, gets a page that says so
/// (``PresentationUnavailable``) on every path under `/p/<id>`.
struct ContentRoutes: Sendable {
    let host: StoryBridgeHost
    let token: LaunchToken
    let defaultPresentationId: Int?
    /// What a schedule plays now (serve `--schedule`), ahead of the default.
    var scheduled: (@Sendable () -> (presentation: Int, slide: String)?)? = nil

    func add(to router: Router<HostRequestContext>) {
        router.get("/") { _, _ in root() }
        router.get("/p/:id") { _, context in try await startSlide(context) }
        router.get("/p/:id/{slide}.html") { request, context in try await slide(request, context: context) }
        router.get("/p/:id/**") { request, context -> Response in
            let presentation = try await presentation(context)
            let relative = String(request.uri.path.dropFirst("/p/\(presentation.id)/".count))
            try ContentPath.decode(relative)
            // A slide in a folder (a Veeva key message, `KM/KM.html`): injected when the
            // presentation's dialect makes it a slide; any other file is the file middleware's.
            if relative.hasSuffix(".html"), let decoded = relative.removingPercentEncoding, presentation.hasSlide(decoded) {
                return try await slide(request, context: context)
            }
            throw HostHTTPError.notFound("Not found: '\(relative)' in presentation \(presentation.id)")
        }
        router.get("/**") { request, _ -> Response in
            throw HostHTTPError.notFound("Not found: \(request.uri.path). Presentations are served under /p/<id>/")
        }
    }

    private func root() -> Response {
        if let link = host.deepLink, host.library.presentation(id: link.presentationId) != nil {
            // Launched by a deep link: open its presentation and slide, and tell the page so.
            return .redirect(to: ContentPaths.slideURL(presentationId: link.presentationId, slide: link.slide) + "?sbdeeplink=1")
        }
        if let playing = scheduled?(), host.library.presentation(id: playing.presentation) != nil {
            return .redirect(to: ContentPaths.slideURL(presentationId: playing.presentation, slide: playing.slide))
        }
        let listed = host.library.listed
        if let id = defaultPresentationId ?? (listed.count == 1 ? listed.first?.id : nil) {
            let entry = host.library.presentation(id: id)?.entrySlide ?? Presentation.startSlide
            return .redirect(to: ContentPaths.slideURL(presentationId: id, slide: entry))
        }
        return .html(HostPages.library(host.library))
    }

    /// The presentation the path names, if it is installed and not blocked.
    private func presentation(_ context: HostRequestContext) async throws -> Presentation {
        let idText = context.parameters.get("id") ?? ""
        guard let id = Int(idText), id > 0 else {
            throw HostHTTPError.notFound("No presentation '\(idText)' in the library: presentation ids are positive integers")
        }
        guard let presentation = host.library.presentation(id: id) else {
            throw PresentationUnavailable.missing(await host.library.missing(id: id))
        }
        guard !presentation.flags.isLockedOut else { throw PresentationUnavailable.blocked(presentation) }
        if let reason = presentation.flags.quarantine { throw PresentationUnavailable.quarantined(presentation, reason: reason) }
        return presentation
    }

    private func startSlide(_ context: HostRequestContext) async throws -> Response {
        let presentation = try await presentation(context)
        return .redirect(to: ContentPaths.slideURL(presentationId: presentation.id, slide: presentation.entrySlide))
    }

    /// A root slide with the client script injected ahead of every content script. The path is
    /// resolved and the file read on the blocking pool (``BlockingIO``), never on a cooperative thread.
    private func slide(_ request: Request, context: HostRequestContext) async throws -> Response {
        let presentation = try await presentation(context)
        // Read while the slide's file is read (StoryContextScript: window._story before content runs).
        async let storyTag = StoryContextScript.tag(for: presentation, host: host)
        let raw = String(request.uri.path.dropFirst("/p/\(presentation.id)/".count))
        let (file, html) = try await BlockingIO.run { [root = presentation.root] () throws -> (ContentPath, Data) in
            let file = try ContentPath(rawRelativePath: raw, root: root)
            // Its scripts and style sheets named by version, kept by the browser (§1.3).
            return (file, VersionedFiles.linkingVersions(in: try Data(contentsOf: file.file), slide: file.relative, root: root))
        }
        let story = await storyTag
        let tag =
            ClientScriptInjector.tag(
                presentationId: presentation.id, slide: file.relative, token: token.value,
                pageAnswers: PageAnswers.allowed(by: host.bridge), earlyAnswers: EarlyAnswers.allowed(by: host.bridge),
                pageConsole: host.pageConsole.settings.clientLimit, story: (story.version, story.revision))
            + story.tag + ClientScriptInjector.adapterTag(for: presentation.dialect)
        let injection = ClientScriptInjector.inject(tag, into: html)
        if let problem = injection.problem {
            ClientScriptInjector.report(problem, presentationId: presentation.id, slide: file.relative, host: host)
        }
        return .html(injection.body)
    }
}
