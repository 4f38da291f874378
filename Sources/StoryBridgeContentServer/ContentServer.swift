import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import StoryBridge

/// A development StoryCLM content API over a storybridge library: the token endpoint, the content
/// routes and signed blob links for the packages, built with Hummingbird.
package struct ContentServer: Sendable {
    package let configuration: ContentServerConfiguration
    package let library: LibraryStore
    package var logger: Logger
    let routes: ContentRoutes
    let publisher: PackagePublisher
    /// The names a request's `Host` may give.
    let hostNames: AllowedHostNames
    /// Plain HTTP, or HTTPS with the configured certificate.
    let serverBuilder: HTTPServerBuilder
    /// `https` with TLS, else `http`.
    package let scheme: String
    /// The fleet hub, when ``ContentServerConfiguration/fleet`` is on.
    package let fleet: FleetHub?
    /// The webhooks' dispatcher, when ``ContentServerConfiguration/webhooks`` are configured.
    package let webhooks: WebhookDispatcher?

    /// Opens the library and the signing secret; fails with a clear error when either is unusable.
    package init(configuration: ContentServerConfiguration, logger: Logger = Logger(label: "storybridge.content-server")) throws {
        self.configuration = configuration
        self.logger = logger
        do {
            library = try LibraryStore(directory: configuration.dataDirectory)
        } catch {
            throw ContentServerSetupError.library("\(configuration.dataDirectory.root.path): \(error)")
        }
        let keys =
            try configuration.signingSecret.map { SigningKeys(secret: $0) }
            ?? SigningKeys.stored(in: configuration.stateFolder)
        var jwt = JSONWebToken(key: keys.tokens)
        jwt.allowedClockSkew = configuration.allowedClockSkew
        let counters = FaultCounters(configuration.faults)
        let publicURL = try configuration.publicBaseURL.map { text throws(ContentServerSetupError) in try PublicURL(text) }
        hostNames = AllowedHostNames(
            boundAddress: configuration.host, extra: configuration.allowedHosts + (publicURL.map { [$0.host] } ?? []))
        scheme = configuration.tls == nil ? "http" : "https"
        var database: HubDatabase?
        if configuration.fleet || configuration.webhooks != nil {
            do {
                database = try HubDatabase(directory: configuration.dataDirectory)
            } catch {
                throw ContentServerSetupError.invalidOption(
                    "\(configuration.fleet ? "the fleet hub" : "the webhooks") cannot start: \(error.description)")
            }
        }
        let metrics = FleetMetrics()
        if let database, let hooks = configuration.webhooks {
            webhooks = WebhookDispatcher(
                database: database, configuration: hooks, clock: configuration.clock, logger: logger, metrics: metrics,
                jitter: configuration.webhookJitter)
        } else {
            webhooks = nil
        }
        if configuration.fleet, let database {
            fleet = try FleetHub(
                database: database, clock: configuration.clock, scheme: scheme, hostNames: hostNames, logger: logger, metrics: metrics,
                webhooks: webhooks, queueAlert: configuration.webhooks?.queueAlert ?? WebhookConfiguration.QueueAlert())
        } else {
            fleet = nil
        }
        serverBuilder = try TLSSetup.serverBuilder(configuration.tls, fleetSockets: fleet?.makeSocketRouter())
        let linkBase = LinkBase(
            publicURL: publicURL, scheme: scheme, host: try Self.linkHost(configuration, publicURL: publicURL),
            port: configuration.port)
        let tokens = TokenService(
            accounts: configuration.accounts, tokens: jwt, accessTokenLifetime: configuration.accessTokenLifetime,
            refreshTokenLifetime: configuration.refreshTokenLifetime, rejectRefresh: configuration.faults.rejectRefresh,
            rotation: RefreshTokenRotation(
                file: configuration.stateFolder.appendingPathComponent("refresh-token-families.json"),
                grace: configuration.refreshGracePeriod),
            issuer: linkBase)
        let manifests = ManifestPublisher(
            folder: ContentTrustFolder(dataDirectory: configuration.dataDirectory), lifetime: configuration.manifestLifetime,
            clock: configuration.clock, logger: logger)
        publisher = PackagePublisher(
            folder: configuration.packagesFolder, leavesOutMediaFiles: configuration.mediaFilesOutsidePackages, manifests: manifests,
            logger: logger, onProgress: configuration.onPackageBuilt ?? { _ in })
        let catalog = ContentCatalog(library: library, accounts: configuration.accounts, packages: publisher, logger: logger)
        routes = ContentRoutes(
            tokens: tokens, throttle: LoginThrottle(limits: configuration.loginLimits), catalog: catalog,
            links: BlobLinks(keyBytes: keys.links, lifetime: configuration.linkLifetime, style: configuration.blobLinks),
            blobs: BlobResponder(fileIO: FileIO(), faults: counters), faults: counters, linkBase: linkBase,
            clock: configuration.clock, manifests: manifests)
    }

    /// The host name links use without `--public-url`: the bound address, or when bound to every
    /// interface the first exact `--allowed-host` name.
    private static func linkHost(
        _ configuration: ContentServerConfiguration, publicURL: PublicURL?
    ) throws(ContentServerSetupError) -> String {
        let bound = AllowedHostNames.hostName(ofAuthority: configuration.host) ?? configuration.host
        guard bound == "0.0.0.0" || bound == "::" else { return bound }
        if let named = configuration.allowedHosts.first(where: { !$0.hasPrefix("*") }) {
            return AllowedHostNames.hostName(ofAuthority: named) ?? named
        }
        if publicURL != nil { return bound }
        throw .invalidOption(
            "--host \(configuration.host) listens on every interface: give --public-url URL or --allowed-host NAME so links name this server"
        )
    }

    /// Builds the Hummingbird application; `onRunning` receives the bound port.
    package func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: ContentRequestContext.self)
        router.add(middleware: ContentHostNameMiddleware(names: hostNames, logger: logger))
        routes.register(on: router)
        fleet?.registerRoutes(
            on: router, tokens: routes.tokens, accounts: configuration.accounts, throttle: routes.throttle,
            publicURL: configuration.publicBaseURL, clock: configuration.clock)
        let publishing = PackagePublishingService(
            catalog: routes.catalog, interval: configuration.packageScanInterval, republishAtStart: configuration.faults.republish,
            logger: logger)
        var services: [any Service] = [
            publishing,
            ManifestSigningService(
                manifests: routes.manifests, interval: configuration.manifestResignInterval, clock: configuration.clock, logger: logger),
        ]
        if let fleet { services += [fleet.ticker, fleet.history] }
        if let webhooks {
            services += [
                webhooks,
                CatalogEventsWatcher(
                    catalog: routes.catalog, dispatcher: webhooks, interval: configuration.packageScanInterval, logger: logger),
            ]
        }
        return Application(
            router: router,
            server: serverBuilder,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "storybridge-content"),
            services: services,
            onServerRunning: { [linkBase = routes.linkBase] channel in
                let port = channel.localAddress?.port ?? 0
                linkBase.bound(to: port)
                await onRunning(port)
            },
            logger: logger)
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully.
    package func runUntilSignalled(onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        try await makeApplication(onRunning: onRunning).runService()
    }

    /// Starts in the background and returns once it listens (for tests and tools) and, with
    /// `waitingForPackages`, once the packages of the presentations installed now are built.
    package func start(waitingForPackages: Bool = true) async throws -> RunningContentServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = makeApplication { port in continuation.yield(port) }
        let task = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        continuation.finish()
        let running = RunningContentServer(
            scheme: scheme, host: configuration.host, port: port, task: task, faults: routes.faults, catalog: routes.catalog)
        if waitingForPackages { try await running.waitForPackages() }
        return running
    }
}

/// A content server started with ``ContentServer/start()``.
package struct RunningContentServer: Sendable {
    /// `https` when serving TLS, else `http`.
    package let scheme: String
    package let host: String
    /// The bound port.
    package let port: Int
    let task: Task<Void, any Error>
    let faults: FaultCounters
    let catalog: ContentCatalog

    /// Queues a build for every served presentation whose current revision has no package yet
    /// (as the server does by itself within ``ContentServerConfiguration/packageScanInterval``
    /// of an install) and returns once no build is left.
    package func waitForPackages() async throws {
        await catalog.packages.publishMissing(try await catalog.servedPresentations().map(\.presentation))
        await catalog.packages.waitUntilIdle()
    }

    /// Publishes presentation `presentationId`'s package again: a new package revision (and blob
    /// id and link) under the same presentation revision, as `--test-republish` does at start-up.
    package func republish(_ presentationId: Int) async throws -> PublishedPackage {
        try await catalog.republish(presentationId)
    }

    /// Re-signs now the manifests with less than a third of their lifetime left (as the server does
    /// every ``ContentServerConfiguration/manifestResignInterval``); the names of the files re-signed.
    package func resignManifests() async throws(TrustFailure) -> [String] {
        try await catalog.packages.manifests?.resignDue() ?? []
    }

    /// The requests `--test-fail-first` counted (none when it is off), in the order they came.
    package var faultLog: [FaultRecord] { faults.log }

    /// Changes the test faults while the server runs (for example an empty client list for the
    /// next request only); requests already answered are not affected.
    package func updateFaults(_ change: (inout TestFaults) -> Void) {
        faults.update(change)
    }

    /// `http://127.0.0.1:53121`: both the auth and the API base URL.
    package var baseURL: String { "\(scheme)://\(host):\(port)" }

    /// Stops the server and waits until it has shut down.
    package func stop() async {
        task.cancel()
        _ = await task.result
    }
}
