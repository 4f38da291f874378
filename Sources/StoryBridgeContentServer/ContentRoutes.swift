import Foundation
import Hummingbird
import StoryBridge

/// The routes: `/connect/token` (with the limit on failed logins), the six `/v1/…` content routes
/// behind the bearer middleware, and the signed blob links under `/blobs/`.
struct ContentRoutes: Sendable {
    let tokens: TokenService
    /// Limits failed logins per user and per address.
    let throttle: LoginThrottle
    let catalog: ContentCatalog
    let links: BlobLinks
    let blobs: BlobResponder
    let faults: FaultCounters
    /// Where `sas` links point (never taken from a request).
    let linkBase: LinkBase
    /// The time tokens and links are issued and checked at.
    let clock: any HostClock
    /// The signed manifests of the packages and the keys document (docs/CONTENT-API.md, "Manifests and keys").
    let manifests: ManifestPublisher

    func register(on router: Router<ContentRequestContext>) {
        router.post("connect/token") { request, context -> Response in
            let fields = try await TokenRequestForm.fields(of: request)
            let now = clock.now
            let keys = LoginThrottle.keys(address: context.remoteAddress, form: fields)
            try throttle.check(keys, now: now)
            do {
                let reply = try await tokens.grant(fields, now: now)
                throttle.succeeded(keys)
                return JSONReply.response(reply)
            } catch let error as TokenEndpointError where error.countsAsFailedLogin {
                throttle.failed(keys, now: now)
                throw error
            }
        }

        // The keys document is public: no token (a kiosk that never logged in may fetch it).
        router.get("v1/trust/keys") { _, _ -> Response in
            let file = manifests.folder.keysDocument
            guard let bytes = await BlockingIO.run({ try? Data(contentsOf: file) }) else {
                throw ContentAPIError.notFound("this server signs nothing")
            }
            return Self.documentResponse(bytes)
        }

        // Hummingbird matches `/v1/clients` and `/v1/clients/` to the same route.
        let api = router.group("v1")
            .add(middleware: FailFirstMiddleware(counters: faults, scope: .content))
            .add(middleware: BearerTokenMiddleware(tokens: tokens, clock: clock))
        api.get("clients") { _, context -> Response in
            if faults.takeEmptyClientList() { return JSONReply.response([WireClient]()) }
            return JSONReply.response(try await catalog.clients(for: context.claims))
        }
        api.get("clients/:id") { _, context -> Response in
            JSONReply.response(try await catalog.client(try Self.id(context), for: context.claims))
        }
        api.get("presentations/:id") { _, context -> Response in
            let id = try Self.id(context)
            if let forced = try Self.forcedAnswer(faults.forcedAnswer(presentationId: id, package: false)) { return forced }
            let placed = try await catalog.placed(id, for: context.claims)
            let package = try await catalog.package(of: placed)
            // Each media file's size is read from the disk: on the blocking pool.
            var wire = await BlockingIO.run { [catalog] in catalog.presentation(placed, package: package) }
            wire.sourcesFolder.manifest = manifestLink(id, package: package)
            return JSONReply.response(wire)
        }
        api.get("contentpackages/:id") { _, context -> Response in
            let id = try Self.id(context)
            if let forced = try Self.forcedAnswer(faults.forcedAnswer(presentationId: id, package: true)) { return forced }
            let placed = try await catalog.placed(id, for: context.claims)
            let package = try await catalog.package(of: placed)
            var folder = catalog.sourcesFolder(placed, package: package)
            let path = "/blobs/packages/\(package.fileName)"
            folder.sas = links.link(base: linkBase.base, path: path, now: clock.now)
            folder.manifest = manifestLink(id, package: package)
            return JSONReply.response(folder)
        }
        api.get("contentpackages/:id/manifest") { request, context -> Response in
            try await manifest(request, context)
        }
        api.get("mediafiles/:id") { _, context -> Response in
            let id = try Self.id(context)
            let (placed, media, _, size) = try await catalog.media(id: id, for: context.claims)
            let revision = placed.presentation.revision
            let date = ContentDate.string(placed.entry.installedAt)
            let path = "/blobs/mediafiles/\(id)-r\(revision)"
            return JSONReply.response(
                WireMediaFile(
                    id: id, revision: revision, fileName: media.fileName, title: media.title,
                    blobId: StableIdentifier.blobId("media", id: id, revision: revision), fileSize: size,
                    mimeType: ContentCatalog.mimeType(forFileName: media.fileName), created: date, updated: date,
                    isAvailableForSharing: false, sas: links.link(base: linkBase.base, path: path, now: clock.now)))
        }
        api.get("slides/:id") { _, context -> Response in
            JSONReply.response(try await catalog.slide(id: try Self.id(context), for: context.claims))
        }

        let blobGroup = router.group("blobs").add(middleware: FailFirstMiddleware(counters: faults, scope: .blobs))
        for method in [HTTPRequest.Method.get, .head] {
            blobGroup.on("packages/:blob", method: method) { request, context in
                try await package(request, context)
            }
            blobGroup.on("mediafiles/:blob", method: method) { request, context in
                try await mediaFile(request, context)
            }
        }
    }

    private func package(_ request: Request, _ context: ContentRequestContext) async throws -> Response {
        try verifyLink(request)
        let name = context.parameters.get("blob") ?? ""
        guard name.hasSuffix(".zip"), let (id, revision) = Self.idAndRevision(String(name.dropLast(4))) else {
            throw ContentAPIError.notFound("no such blob")
        }
        let (_, package) = try await catalog.package(id: id, revision: revision)
        return try await blobs.respond(
            to: request, context: context,
            blob: BlobSource(
                file: catalog.packages.file(of: package), size: package.size, etag: "\"\(package.sha256)\"",
                lastModified: package.publishedAt,
                contentType: "application/zip", downloadName: nil))
    }

    private func mediaFile(_ request: Request, _ context: ContentRequestContext) async throws -> Response {
        try verifyLink(request)
        guard let (id, revision) = Self.idAndRevision(context.parameters.get("blob") ?? "") else {
            throw ContentAPIError.notFound("no such blob")
        }
        let (placed, media, file, size) = try await catalog.media(id: id)
        guard placed.presentation.revision == revision else {
            throw ContentAPIError.notFound("revision \(revision) of media file \(id) is no longer served; ask for the media file again")
        }
        return try await blobs.respond(
            to: request, context: context,
            blob: BlobSource(
                file: file, size: size, etag: "\"m\(id)-r\(revision)-\(size)\"", lastModified: placed.entry.installedAt,
                contentType: ContentCatalog.mimeType(forFileName: media.fileName), downloadName: media.fileName))
    }

    /// `GET /v1/contentpackages/{id}/manifest[?packageRevision=N]`: the signed manifest of the
    /// package's current revision or the one before it.
    private func manifest(_ request: Request, _ context: ContentRequestContext) async throws -> Response {
        let id = try Self.id(context)
        let placed = try await catalog.placed(id, for: context.claims)
        guard manifests.signs else { throw ContentAPIError.notFound("this server signs nothing") }
        if let forged = faults.faults.serveManifest {
            guard let bytes = await BlockingIO.run({ try? Data(contentsOf: forged) }) else {
                throw ContentAPIError.notFound("--test-serve-manifest: \(forged.path) cannot be read")
            }
            return Self.documentResponse(bytes)
        }
        let package = try await catalog.package(of: placed)
        var revision = package.revision
        if let text = Self.queryFields(request.uri.query)["packageRevision"] {
            guard let asked = Int(text), asked > 0 else { throw ContentAPIError.notFound("packageRevision is a positive integer") }
            revision = asked
        }
        guard revision == package.revision || revision == package.revision - 1 else {
            throw ContentAPIError.notFound(
                "revision \(revision) of package \(package.id) is not served; the current revision is \(package.revision)")
        }
        switch await manifests.availability(packageId: package.id, revision: revision) {
        case .signed(let bytes):
            return Self.documentResponse(bytes)
        case .awaitingSignature:
            throw ContentAPIError.unavailable(
                "the manifest of package \(package.id) revision \(revision) awaits its signature", retryAfter: 60)
        case .unsigned:
            throw ContentAPIError.notFound("this server signs nothing")
        case .missing:
            guard revision == package.revision else {
                throw ContentAPIError.notFound("package \(package.id) revision \(revision) has no manifest")
            }
            throw ContentAPIError.unavailable("the manifest of package \(package.id) revision \(revision) is being made", retryAfter: 1)
        }
    }

    /// The `manifest` link of a package answer: absent when the server signs nothing.
    private func manifestLink(_ presentationId: Int, package: PublishedPackage) -> String? {
        guard manifests.signs else { return nil }
        return "\(linkBase.base)/v1/contentpackages/\(presentationId)/manifest?packageRevision=\(package.revision)"
    }

    /// A stored signed document, as it is on disk.
    private static func documentResponse(_ bytes: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func verifyLink(_ request: Request) throws {
        try links.verify(path: request.uri.path, query: Self.queryFields(request.uri.query), now: clock.now)
    }

    /// The query's fields, each value percent-decoded (a `+` stays a `+`, as in a SAS signature);
    /// a field given twice, or not valid percent-encoding, is left out.
    static func queryFields(_ query: String?) -> [String: String] {
        var fields: [String: String] = [:]
        var repeated = Set<String>()
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].removingPercentEncoding, let value = (parts.count > 1 ? parts[1] : "").removingPercentEncoding
            else { continue }
            if fields.updateValue(value, forKey: name) != nil { repeated.insert(name) }
        }
        for name in repeated { fields[name] = nil }
        return fields
    }

    /// The response of a test fault forced on a presentation (`--test-no-content-…`,
    /// `--test-forbid-presentation`), if one is.
    private static func forcedAnswer(_ forced: FaultCounters.ForcedAnswer?) throws -> Response? {
        switch forced {
        case .none: return nil
        case .noContent: return Response(status: .noContent)
        case .forbidden: throw ContentAPIError.forbidden("access to this presentation is denied (--test-forbid-presentation)")
        }
    }

    private static func id(_ context: ContentRequestContext) throws -> Int {
        guard let text = context.parameters.get("id"), let id = Int(text), id > 0 else {
            throw ContentAPIError.notFound("ids are positive integers")
        }
        return id
    }

    /// `12-r3` → (12, 3).
    private static func idAndRevision(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "-r", omittingEmptySubsequences: false)
        guard parts.count == 2, let id = Int(parts[0]), let revision = Int(parts[1]) else { return nil }
        return (id, revision)
    }
}
