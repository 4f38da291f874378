import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoryBridge

/// Answers plain HTTP: presentation files under `/p/<id>/`, slides with the client script
/// injected, the host's own scripts under `/__storybridge/`, and a redirect from `/` to the
/// default presentation's start slide.
struct ContentResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let host: StoryBridgeHost
    let gate: ConnectionGate
    let token: String
    let defaultPresentationId: Int?
    let metrics: HostMetrics
    let uploadCollector: String?
    let fileIO = FileIO()

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "Only GET and HEAD are served")
        }
        let path = request.uri.path
        if path == "/" {
            if let link = host.deepLink, host.library.presentation(id: link.presentationId) != nil {
                // Launched by a deep link: open its presentation and slide, and tell the page so.
                return Response.redirect(
                    to: ContentPaths.slideURL(presentationId: link.presentationId, slide: link.slide) + "?sbdeeplink=1")
            }
            let all = host.library.all
            if let id = defaultPresentationId ?? (all.count == 1 ? all.first?.id : nil) {
                return Response.redirect(to: ContentPaths.slideURL(presentationId: id, slide: Presentation.startSlide))
            }
            return Self.html(HostPages.library(all))
        }
        if path.hasPrefix(ContentPaths.reservedPrefix) {
            return await reserved(String(path.dropFirst(ContentPaths.reservedPrefix.count)), request: request)
        }
        if path.hasPrefix(ContentPaths.presentationPrefix) {
            return try await content(path: String(path.dropFirst(ContentPaths.presentationPrefix.count)), request: request, context: context)
        }
        return Self.text(.notFound, "Not found: \(path). Presentations are served under /p/<id>/")
    }

    private func deepLinks() async -> Response {
        var viewers: [JSONValue] = []
        for viewer in await host.viewers.all {
            let state = await viewer.state
            viewers.append([
                "viewer": .string(viewer.id), "inbound": state.inboundDeepLink?.json ?? .null,
                "outbound": state.outboundDeepLink.json, "outboundURI": state.outboundDeepLink.uri.map(JSONValue.string) ?? .null,
            ])
        }
        let body: JSONValue = ["launchedWith": host.deepLink?.json ?? .null, "viewers": .array(viewers)]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body.jsonString())))
    }

    private func reserved(_ name: String, request: Request) async -> Response {
        switch name {
        case "client.js", "storyclm.js":
            guard let script = EmbeddedScripts.all[name] else {
                return Self.text(.internalServerError, "The host was built without \(name)")
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/javascript; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: script)))
        case "ws":
            switch gate.admit(rawPath: request.uri.string, origin: request.headers[.origin], authority: request.head.authority) {
            case .failure(let refusal): return Self.text(refusal.status, refusal.message)
            case .success: return Self.text(.badRequest, "This endpoint only accepts WebSocket upgrades")
            }
        case "deeplinks":
            return await deepLinks()
        case "metrics":
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            let text: String
            do { text = try await metrics.render(analytics: host.analytics) } catch {
                return Self.text(.internalServerError, "Cannot read the upload queue for the metrics: \(error)")
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        case "inspector", "inspector/":
            guard hasToken(request) else { return Self.forbiddenInspector() }
            return Self.embedded("inspector.html", type: "text/html; charset=utf-8")
        case "inspector/inspector.js":
            return Self.embedded("inspector.js", type: "application/javascript; charset=utf-8")
        case "inspector/inspector.css":
            return Self.embedded("inspector.css", type: "text/css; charset=utf-8")
        case "inspector/snapshot":
            guard hasToken(request) else { return Self.forbiddenInspector() }
            let snapshot: JSONValue
            do { snapshot = try await InspectorSnapshot.build(host: host, uploadCollector: uploadCollector) } catch {
                return Self.text(.internalServerError, "Cannot read the analytics for the snapshot: \(error)")
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: snapshot.jsonString())))
        case "inspector/ws":
            guard hasToken(request) else { return Self.forbiddenInspector() }
            return Self.text(.badRequest, "This endpoint only accepts WebSocket upgrades")
        case "library":
            return Self.html(HostPages.library(host.library.all))
        case "closed":
            let query = request.uri.queryParameters
            let id = query["presentation"].flatMap { Int(String($0)) }
            let outcome = query["outcome"].map(String.init) ?? "closed"
            return Self.html(
                HostPages.closed(
                    presentation: id.flatMap { host.library.presentation(id: $0) }, outcome: outcome, all: host.library.all))
        case "info":
            let presentations: [JSONValue] = host.library.all.map {
                ["presId": .int($0.id), "name": .string($0.name), "slides": .int($0.slides.count)]
            }
            let info: JSONValue = [
                "version": .string(StoryBridgeVersion.current), "presentations": .array(presentations),
                "commands": .array(host.bridge.commands.map(JSONValue.string)),
            ]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: info.jsonString())))
        default:
            return Self.text(.notFound, "Not found: \(ContentPaths.reservedPrefix)\(name)")
        }
    }

    private func hasToken(_ request: Request) -> Bool {
        request.uri.queryParameters["token"].map(String.init) == token
    }

    private static func forbiddenInspector() -> Response {
        text(.forbidden, "The inspector needs the server's token: open the inspector address that storybridge serve printed (…/__storybridge/inspector?token=…)")
    }

    private static func embedded(_ name: String, type: String) -> Response {
        guard let file = EmbeddedScripts.all[name] else {
            return text(.internalServerError, "The host was built without \(name)")
        }
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: file)))
    }

    private func content(path: String, request: Request, context: Context) async throws -> Response {
        let idPart = path.prefix { $0 != "/" }
        guard let id = Int(idPart), let presentation = host.library.presentation(id: id) else {
            return Self.text(.notFound, "No presentation '\(idPart)' in the library")
        }
        let rest = path.dropFirst(idPart.count)
        if rest.isEmpty {
            return Response.redirect(to: ContentPaths.slideURL(presentationId: id, slide: Presentation.startSlide))
        }
        let file: ContentPath
        do {
            file = try ContentPath(rawRelativePath: String(rest.dropFirst()), root: presentation.root)
        } catch {
            return Self.text(HTTPResponse.Status(code: error.status), error.message)
        }
        if file.isSlide {
            return try slide(file, presentation: presentation)
        }
        return try await staticFile(file, request: request, context: context)
    }

    private func slide(_ file: ContentPath, presentation: Presentation) throws -> Response {
        let html = String(decoding: try Data(contentsOf: file.file), as: UTF8.self)
        let tag = ClientScriptInjector.tag(presentationId: presentation.id, slide: file.relative, token: token)
        let page = ClientScriptInjector.inject(tag, into: html)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    private func staticFile(_ file: ContentPath, request: Request, context: Context) async throws -> Response {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.file.path)[.size] as? Int) ?? 0
        var headers = HTTPFields()
        let ext = file.file.pathExtension.lowercased()
        headers[.contentType] = MediaType.getMediaType(forExtension: ext)?.description ?? "application/octet-stream"
        headers[.acceptRanges] = "bytes"
        headers[.cacheControl] = "no-cache"
        if let rangeHeader = request.headers[.range], size > 0 {
            guard let range = Self.byteRange(rangeHeader, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            let body = try await fileIO.loadFile(path: file.file.path, range: range, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
        headers[.contentLength] = String(size)
        let body = try await fileIO.loadFile(path: file.file.path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Parses a single `bytes=a-b`, `bytes=a-` or `bytes=-n` range.
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let start = Int(spec[0].trimmingCharacters(in: .whitespaces))
        let end = Int(spec[1].trimmingCharacters(in: .whitespaces))
        switch (start, end) {
        case let (start?, end?) where start <= end && start < size: return start...min(end, size - 1)
        case let (start?, nil) where start < size: return start...(size - 1)
        case let (nil, suffix?) where suffix > 0: return max(0, size - suffix)...(size - 1)
        default: return nil
        }
    }

    static func html(_ page: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
