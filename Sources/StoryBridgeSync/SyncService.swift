import AsyncHTTPClient
import Foundation
import Logging
import StoryBridge

/// Everything a logged-in sync needs, opened from a data folder: the stored session, a token
/// provider, the content API client, the library and the sync catalog. Call ``shutdown()`` when done.
package final class SyncService: Sendable {
    package let paths: SyncPaths
    package let library: LibraryStore
    package let catalog: SyncCatalog
    package let tokens: AccessTokenProvider
    package let api: ContentAPIClient
    package let http: HTTPClient
    package let logger: Logger

    /// Opens the data folder; throws ``SyncError/notLoggedIn`` without a stored session.
    package init(directory: DataDirectory, retry: RetryPolicy = RetryPolicy(), logger: Logger) throws(SyncError) {
        paths = SyncPaths(directory)
        do {
            library = try LibraryStore(directory: directory)
        } catch {
            throw .storage("cannot open the library in \(directory.root.path): \(error)")
        }
        catalog = SyncCatalog(database: library.database)
        let store = SessionStore(folder: paths.sessionFolder)
        guard let session = try store.load() else { throw .notLoggedIn }
        http = SyncHTTPClient.make()
        tokens = AccessTokenProvider(session: session, store: store, auth: AuthClient(http: http, authURL: session.authURL))
        api = ContentAPIClient(http: http, apiURL: session.apiURL, tokens: tokens, retry: retry, logger: logger)
        self.logger = logger
    }

    /// Brings the catalog up to date (clients, every listed presentation object, presentations gone
    /// from the service withdrawn or removed as `removals` says).
    package func syncMetadata(removals: RemovalPolicy = RemovalPolicy()) async throws(SyncError) -> MetadataSyncReport {
        try await MetadataSync(api: api, catalog: catalog, paths: paths, removals: removals).run()
    }

    /// Downloads and installs packages (`ids`, or every one that needs it), all of them together
    /// no faster than `rateLimit` when one is given.
    package func syncContent(
        ids: [Int]?, concurrency: Int = 2, keepRevisions: Int = 1, rateLimit: TransferRate? = nil,
        trust: TrustPolicy = TrustPolicy(), events: @escaping @Sendable (ContentSyncEvent) -> Void
    ) async throws(SyncError) -> ContentSyncReport {
        var downloader = ResumableDownloader(logger: logger)
        downloader.rateLimiter = rateLimit.map(TransferRateLimiter.init(rate:))
        var sync = ContentSync(
            api: api, catalog: catalog, library: library, paths: paths, downloader: downloader, concurrency: concurrency,
            logger: logger)
        sync.keepRevisions = keepRevisions
        sync.trust = TrustGate(
            store: KioskTrustStore(directory: library.directory, rootFile: trust.rootFile), api: api, database: library.database,
            policy: trust, limits: sync.limits, logger: logger)
        return try await sync.run(ids: ids, events: events)
    }

    /// Closes the HTTP client.
    package func shutdown() async {
        try? await http.shutdown()
    }
}

/// Logging in and out: the token endpoint is asked once and the session written (0600).
package enum SyncLogin {
    /// Asks for a token with `grant` and stores the session; returns it.
    package static func login(
        directory: DataDirectory, authURL: URL, apiURL: URL, grant: TokenGrant
    ) async throws(SyncError) -> SyncSession {
        let http = SyncHTTPClient.make()
        let reply: TokenReply
        do {
            reply = try await AuthClient(http: http, authURL: authURL).requestToken(grant)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
        let session: SyncSession
        switch grant {
        case .clientCredentials(let id, let secret):
            session = SyncSession(
                authURL: authURL, apiURL: apiURL, kind: .service, clientId: id, clientSecret: secret, username: nil, reply: reply)
        case .password(let id, let secret, let username, _):
            session = SyncSession(
                authURL: authURL, apiURL: apiURL, kind: .user, clientId: id, clientSecret: secret, username: username, reply: reply)
        case .refreshToken:
            throw .refreshRefused(oauthError: "a login needs credentials, not a refresh token")
        }
        try directory.prepareOrThrow()
        try SessionStore(folder: SyncPaths(directory).sessionFolder).save(session)
        return session
    }

    /// Forgets the stored session; returns whether there was one.
    @discardableResult
    package static func logout(directory: DataDirectory) throws(SyncError) -> Bool {
        try SessionStore(folder: SyncPaths(directory).sessionFolder).delete()
    }

    /// The stored session, if any.
    package static func session(directory: DataDirectory) throws(SyncError) -> SyncSession? {
        try SessionStore(folder: SyncPaths(directory).sessionFolder).load()
    }
}

extension DataDirectory {
    func prepareOrThrow() throws(SyncError) {
        do { try prepare() } catch { throw .storage("cannot create \(root.path)") }
    }
}
