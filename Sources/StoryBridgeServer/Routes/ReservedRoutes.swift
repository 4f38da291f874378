import Foundation
import Hummingbird
import StoryBridge

/// The host's own HTTP endpoints under `/__storybridge/`: its scripts, the inspector, metrics,
/// deep links, the library and closed pages, and the info document. The inspector, its snapshot
/// and the deep links need the launch token (``TokenMiddleware``); the scripts and pages hold
/// nothing private. The WebSocket paths answer a plain GET with 426 (they are served by the
/// WebSocket router).
struct ReservedRoutes: Sendable {
    let host: StoryBridgeHost
    let token: LaunchToken
    let metrics: HostMetrics
    let refusals: RefusalLog
    let uploadCollector: String?
    let echo: Bool
    let health: HealthSources?

    func add(to router: Router<HostRequestContext>) {
        let reserved = router.group("__storybridge")
        for name in ["client.js", "storyclm.js"] + DialectName.allCases.compactMap(\.clientAdapter) {
            reserved.get(RouterPath(name)) { request, _ in
                // The versioned URL slides use is cached for good; any other is checked every time.
                let current = request.uri.queryParameters["v"].map { String($0) } == EmbeddedScripts.versions[name]
                return try Self.embedded(
                    name, type: "application/javascript; charset=utf-8",
                    cache: current ? "public, max-age=31536000, immutable" : "no-cache")
            }
        }
        // The client's source map puts it on DevTools' ignore list (docs/PROTOCOL.md §5.10).
        reserved.get("client.js.map") { _, _ -> Response in
            guard let map = EmbeddedScripts.clientSourceMap else {
                throw HostHTTPError(.internalServerError, "The host was built without client.js")
            }
            return .body(map, type: "application/json; charset=utf-8", cache: "no-cache")
        }
        for script in ["inspector.js", "inspector-revisions.js"] {
            reserved.get(RouterPath("inspector/" + script)) { _, _ in
                try Self.embedded(script, type: "application/javascript; charset=utf-8")
            }
        }
        reserved.get("inspector/inspector.css") { _, _ in try Self.embedded("inspector.css", type: "text/css; charset=utf-8") }
        reserved.get("metrics") { _, _ -> Response in
            let text: String
            do { text = try await metrics.render(analytics: host.analytics) } catch {
                throw HostHTTPError(.internalServerError, "Cannot read the upload queue for the metrics: \(error)")
            }
            return .body(text, type: "text/plain; version=0.0.4; charset=utf-8", cache: "no-store")
        }
        reserved.get("library") { _, _ -> Response in .html(HostPages.library(host.library)) }
        reserved.get("closed") { request, _ in closedPage(request) }
        reserved.get("info") { _, _ in info() }
        if let health {
            // No token: the answer names nothing but deck ids and revisions.
            reserved.get("health") { _, _ -> Response in
                let report = await HealthReport.build(host: host, sources: health)
                var response = Response.json(report.document)
                if !report.isHealthy { response.status = .serviceUnavailable }
                return response
            }
        }
        for path in ["ws", "inspector/ws"] + (echo ? ["echo"] : []) {
            reserved.get(RouterPath(path)) { _, _ -> Response in throw HostHTTPError.upgradeRequired }
        }

        let guarded = reserved.group().add(middleware: TokenMiddleware(token: token, refusals: refusals))
        guarded.get("inspector") { _, _ in try Self.embedded("inspector.html", type: "text/html; charset=utf-8") }
        guarded.get("inspector/snapshot") { _, _ in
            do { return Response.json(try await InspectorSnapshot.build(host: host, uploadCollector: uploadCollector)) } catch {
                throw HostHTTPError(.internalServerError, "Cannot read the analytics for the snapshot: \(error)")
            }
        }
        guarded.get("deeplinks") { _, _ in await deepLinks() }
        reserved.get("**") { request, _ -> Response in throw HostHTTPError.notFound("Not found: \(request.uri.path)") }
    }

    /// A file built into the binary (js/ and the inspector's page).
    private static func embedded(_ name: String, type: String, cache: String = "no-cache") throws -> Response {
        guard let file = EmbeddedScripts.all[name] else {
            throw HostHTTPError(.internalServerError, "The host was built without \(name)")
        }
        return .body(file, type: type, cache: cache)
    }

    private func closedPage(_ request: Request) -> Response {
        let query = request.uri.queryParameters
        let id = query["presentation"].flatMap { Int(String($0)) }
        let outcome = query["outcome"].map(String.init) ?? "closed"
        return .html(
            HostPages.closed(
                presentation: id.flatMap { host.library.presentation(id: $0) }, outcome: outcome, all: host.library.listed))
    }

    private func info() -> Response {
        let presentations: [JSONValue] = host.library.all.map {
            ["presId": .int($0.id), "name": .string($0.name), "slides": .int($0.slides.count)]
        }
        return .json([
            "version": .string(StoryBridgeVersion.current), "presentations": .array(presentations),
            "commands": .array(host.bridge.commands.map(JSONValue.string)),
        ])
    }

    /// Every viewer's inbound and outbound deep link, and the one the host was launched with.
    private func deepLinks() async -> Response {
        var viewers: [JSONValue] = []
        for viewer in await host.viewers.all {
            let state = await viewer.state
            viewers.append([
                "viewer": .string(viewer.id), "inbound": state.inboundDeepLink?.json ?? .null,
                "outbound": state.outboundDeepLink.json,
                "outboundURI": state.outboundDeepLink.uri.map(JSONValue.string) ?? .null,
            ])
        }
        return .json(["launchedWith": host.deepLink?.json ?? .null, "viewers": .array(viewers)])
    }
}
