import Foundation
import Logging
import StoryBridge

/// What the content routes answer, read from the library's catalog on every request (so an
/// `install` into the same data folder shows at once) and grouped into clients by the accounts.
struct ContentCatalog: Sendable {
    let library: LibraryStore
    let accounts: ContentServerAccounts
    let packages: PackagePublisher
    /// Where failures are told with their details (paths, underlying errors), which answers leave out.
    let logger: Logger

    /// A presentation that a client holds, with its flags.
    struct Placed: Sendable {
        var entry: LibraryStore.Entry
        var client: ContentServerAccounts.Client
        var flags: ContentServerAccounts.PresentationEntry
        var presentation: Presentation { entry.presentation }
    }

    private func installed() async throws -> [Int: LibraryStore.Entry] {
        do {
            return Dictionary(try await library.readEntries().map { ($0.presentation.id, $0) }, uniquingKeysWith: { first, _ in first })
        } catch {
            logger.error("cannot read the library catalog: \(error)")
            throw ContentAPIError.unavailable("the library cannot be read now (the server's log says why)", retryAfter: 1)
        }
    }

    /// The clients a token with `claims` may see (every client without claims).
    private func granted(_ claims: AccessTokenClaims?) -> Set<Int>? {
        claims.flatMap { accounts.grantedClients(to: $0) }
    }

    /// `GET /v1/clients`: the clients the token is granted.
    func clients(for claims: AccessTokenClaims?) async throws -> [WireClient] {
        let entries = try await installed()
        let granted = granted(claims)
        return accounts.clients(installed: Set(entries.keys)).filter { granted?.contains($0.id) ?? true }.map { client in
            wireClient(client, entries: entries)
        }
    }

    /// `GET /v1/clients/{id}`: 404 when no such client is configured, 403 when the token is not
    /// granted it.
    func client(_ id: Int, for claims: AccessTokenClaims?) async throws -> WireClient {
        let entries = try await installed()
        guard let client = accounts.clients(installed: Set(entries.keys)).first(where: { $0.id == id }) else {
            throw ContentAPIError.notFound("no client \(id)")
        }
        guard granted(claims)?.contains(id) ?? true else {
            throw ContentAPIError.forbidden("the token is not granted client \(id)")
        }
        return wireClient(client, entries: entries)
    }

    private func wireClient(_ client: ContentServerAccounts.Client, entries: [Int: LibraryStore.Entry]) -> WireClient {
        let held = client.presentations.compactMap { flags in entries[flags.id].map { (flags, $0) } }
        let dates = held.map(\.1.installedAt)
        let created = ContentDate.string(dates.min() ?? Date(timeIntervalSince1970: 0))
        let updated = ContentDate.string(dates.max() ?? Date(timeIntervalSince1970: 0))
        return WireClient(
            id: client.id, name: client.name, lockoutEnabled: false, shortDescription: nil, longDescription: nil,
            thumbImgId: nil, imgId: nil, url: nil, email: nil, created: created, updated: updated,
            presentations: held.map { flags, entry in
                WirePresentationStub(
                    id: flags.id, revision: entry.presentation.revision, skip: flags.skip, debug: flags.debug,
                    lockout: flags.lockout)
            },
            users: accounts.users(of: client.id).map { WireClientUser(id: $0.guid, role: $0.role ?? 0) }, groups: [],
            tables: [])
    }

    /// The presentation `id` if a client the token is granted holds it and it is installed: 404
    /// when no client holds it, 403 when only clients the token is not granted do.
    func placed(_ id: Int, for claims: AccessTokenClaims? = nil) async throws -> Placed {
        let entries = try await installed()
        let installedIds = Set(entries.keys)
        guard let entry = entries[id], accounts.placement(of: id, installed: installedIds) != nil else {
            throw ContentAPIError.notFound("no presentation \(id)")
        }
        guard let (client, flags) = accounts.placement(of: id, installed: installedIds, granted: granted(claims)) else {
            throw ContentAPIError.forbidden("presentation \(id) belongs to a client the token is not granted")
        }
        return Placed(entry: entry, client: client, flags: flags)
    }

    /// The published package of a placed presentation's current revision. Answers at once: while
    /// the package is being built, 503 with `Retry-After: 1`; a build that failed, 500 (the log
    /// says why).
    func package(of placed: Placed) async throws -> PublishedPackage {
        switch await packages.availability(of: placed.presentation) {
        case .ready(let package):
            return package
        case .building:
            throw ContentAPIError.unavailable(
                "the package of presentation \(placed.presentation.id) is being built; try again shortly", retryAfter: 1)
        case .failed:
            throw ContentAPIError.serverFailure(
                "the package of presentation \(placed.presentation.id) cannot be built (the server's log says why)")
        }
    }

    /// The published package `packageId` at `revision` for a blob link, if its presentation is
    /// still served and that revision is still the current one.
    func package(id packageId: Int, revision: Int) async throws -> (Placed, PublishedPackage) {
        guard let package = await packages.package(id: packageId) else { throw ContentAPIError.notFound("no such blob") }
        let placed = try await self.placed(package.presentationId)
        guard package.revision == revision else {
            throw ContentAPIError.notFound(
                "revision \(revision) of package \(packageId) is no longer served; ask for the content package again")
        }
        return (placed, package)
    }

    /// Builds presentation `id`'s package again under the same presentation revision.
    func republish(_ id: Int) async throws -> PublishedPackage {
        let placed = try await self.placed(id)
        guard let package = await packages.republish(placed.presentation) else {
            throw ContentAPIError.serverFailure("the package of presentation \(id) cannot be built (the server's log says why)")
        }
        return package
    }

    /// `sourcesFolder` of a presentation (`sas` added by the content-package route).
    func sourcesFolder(_ placed: Placed, package: PublishedPackage) -> WireSourcesFolder {
        let date = ContentDate.string(package.publishedAt)
        return WireSourcesFolder(
            id: package.id, blobId: StableIdentifier.blobId("package", id: package.id, revision: package.revision),
            fileSize: package.size, mimeType: "application/zip", revision: package.revision, created: date, updated: date, sas: nil)
    }

    /// `GET /v1/presentations/{id}`.
    func presentation(_ placed: Placed, package: PublishedPackage) -> WirePresentation {
        let presentation = placed.presentation
        let date = ContentDate.string(placed.entry.installedAt)
        return WirePresentation(
            id: presentation.id, name: presentation.name, shortDescription: presentation.shortDescription,
            longDescription: presentation.longDescription, thumbImgId: nil, imgId: nil, order: presentation.order,
            revision: presentation.revision, created: date, updated: date, clientId: placed.client.id,
            debugModeEnabled: placed.flags.debug, skip: placed.flags.skip, mapEnabled: placed.flags.mapEnabled, mapType: 0,
            needConfirmation: placed.flags.needConfirmation, previewMode: 0, map: nil, visibility: placed.flags.visibility,
            sourcesFolder: sourcesFolder(placed, package: package),
            mediaFiles: presentation.mediaFiles.map { media in
                WireMediaStub(
                    id: StableIdentifier.make("media", presentationId: presentation.id, name: media.fileName),
                    revision: presentation.revision, fileSize: Self.mediaFile(media, of: presentation).1)
            },
            slides: presentation.slides.map { slide in
                WireSlideStub(
                    id: StableIdentifier.make("slide", presentationId: presentation.id, name: slide.name),
                    revision: presentation.revision)
            },
            presentations: [],
            users: accounts.users(of: placed.client.id).map { WirePresentationUser(revision: 0, id: $0.guid, role: $0.role ?? 0) })
    }

    /// A media file of a served presentation (one of a client the token is granted), found by its id.
    func media(id: Int, for claims: AccessTokenClaims? = nil) async throws -> (Placed, MediaFile, file: URL, size: Int64) {
        for placed in try await servedPresentations(granted: granted(claims)) {
            for media in placed.presentation.mediaFiles
            where StableIdentifier.make("media", presentationId: placed.presentation.id, name: media.fileName) == id {
                let (file, size, exists) = await BlockingIO.run { [presentation = placed.presentation] in
                    let (file, size) = Self.mediaFile(media, of: presentation)
                    return (file, size, FileManager.default.fileExists(atPath: file.path))
                }
                guard exists else {
                    logger.error("media file \(id) of presentation \(placed.presentation.id) is missing: \(file.path)")
                    throw ContentAPIError.notFound("media file \(id) is missing from the server's library")
                }
                return (placed, media, file, size)
            }
        }
        throw ContentAPIError.notFound("no media file \(id)")
    }

    /// `GET /v1/slides/{id}`, among the presentations of the clients the token is granted.
    func slide(id: Int, for claims: AccessTokenClaims?) async throws -> WireSlide {
        for placed in try await servedPresentations(granted: granted(claims)) {
            let presentation = placed.presentation
            for slide in presentation.slides
            where StableIdentifier.make("slide", presentationId: presentation.id, name: slide.name) == id {
                let file = presentation.root.appendingPathComponent(slide.name)
                let source = await BlockingIO.run { (try? Data(contentsOf: file)) ?? Data() }
                let date = ContentDate.string(placed.entry.installedAt)
                return WireSlide(
                    id: id, revision: presentation.revision, name: slide.name, pageSource: source.base64EncodedString(),
                    linkedSlides: slide.metadata.links.joined(separator: ","), swipeNext: slide.metadata.swipeNext,
                    swipePrevious: slide.metadata.swipePrevious, created: date, updated: date)
            }
        }
        throw ContentAPIError.notFound("no slide \(id)")
    }

    /// Every installed presentation with each client that holds it (one per client and presentation).
    func placements() async throws -> [Placed] {
        let entries = try await installed()
        return accounts.clients(installed: Set(entries.keys)).flatMap { client in
            client.presentations.compactMap { flags in entries[flags.id].map { Placed(entry: $0, client: client, flags: flags) } }
        }
    }

    /// Every installed presentation some client holds (among the clients `granted`, all when `nil`).
    func servedPresentations(granted: Set<Int>? = nil) async throws -> [Placed] {
        let entries = try await installed()
        let served = accounts.clients(installed: Set(entries.keys)).filter { granted?.contains($0.id) ?? true }
        var seen = Set<Int>()
        var result: [Placed] = []
        for client in served {
            for flags in client.presentations where seen.insert(flags.id).inserted {
                if let entry = entries[flags.id] { result.append(Placed(entry: entry, client: client, flags: flags)) }
            }
        }
        return result
    }

    static func mediaFile(_ media: MediaFile, of presentation: Presentation) -> (URL, Int64) {
        let file = presentation.root.appendingPathComponent("mediafiles").appendingPathComponent(media.fileName)
        let size = ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? 0
        return (file, size)
    }

    static func mimeType(forFileName name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "mp4": return "video/mp4"
        case "webm": return "video/webm"
        case "mp3": return "audio/mpeg"
        case "wav": return "audio/wav"
        case "ogg": return "audio/ogg"
        case "pdf": return "application/pdf"
        default: return "application/octet-stream"
        }
    }
}
