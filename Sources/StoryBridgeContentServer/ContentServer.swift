import Foundation
import Hummingbird
import Logging
import StoryBridge

/// A development StoryCLM content API over a storybridge library: the token endpoint, the content
/// routes and signed blob links for the packages, built with Hummingbird.
public struct ContentServer: Sendable {
    public let configuration: ContentServerConfiguration
    public let library: LibraryStore
    public var logger: Logger
    let routes: ContentRoutes

    /// Opens the library and the signing secret; fails with a clear error when either is unusable.
    public init(configuration: ContentServerConfiguration, logger: Logger = Logger(label: "storybridge.content-server")) throws {
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
        let tokens = TokenService(
            accounts: configuration.accounts, tokens: jwt, accessTokenLifetime: configuration.accessTokenLifetime,
            refreshTokenLifetime: configuration.refreshTokenLifetime, rejectRefresh: configuration.faults.rejectRefresh)
        let catalog = ContentCatalog(
            library: library, accounts: configuration.accounts,
            packages: PackageCache(
                folder: configuration.packagesFolder, leavesOutMediaFiles: configuration.mediaFilesOutsidePackages))
        routes = ContentRoutes(
            tokens: tokens, catalog: catalog, links: BlobLinks(keyBytes: keys.links, lifetime: configuration.linkLifetime),
            blobs: BlobResponder(fileIO: FileIO(), faults: counters), faults: counters,
            publicBaseURL: configuration.publicBaseURL, clock: configuration.clock)
    }

    /// Builds the Hummingbird application; `onRunning` receives the bound port.
    public func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: ContentRequestContext.self)
        routes.register(on: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "storybridge-content"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully.
    public func runUntilSignalled(onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        try await makeApplication(onRunning: onRunning).runService()
    }

    /// Starts in the background and returns once it listens (for tests and tools).
    public func start() async throws -> RunningContentServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = makeApplication { port in continuation.yield(port) }
        let task = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        continuation.finish()
        return RunningContentServer(host: configuration.host, port: port, task: task, faults: routes.faults)
    }
}

/// A content server started with ``ContentServer/start()``.
public struct RunningContentServer: Sendable {
    public let host: String
    /// The bound port.
    public let port: Int
    let task: Task<Void, any Error>
    let faults: FaultCounters

    /// The requests `--test-fail-first` counted (none when it is off), in the order they came.
    public var faultLog: [FaultRecord] { faults.log }

    /// `http://127.0.0.1:53121`: both the auth and the API base URL.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Stops the server and waits until it has shut down.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}
