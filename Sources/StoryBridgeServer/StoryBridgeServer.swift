import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import StoryBridge

/// How the server listens and what it allows.
public struct ServerConfiguration: Sendable {
    /// Address to bind; `127.0.0.1` by default.
    public var host: String
    /// Port to bind; `0` picks a free one.
    public var port: Int
    /// The presentation `/` redirects to; the library's first when `nil`.
    public var defaultPresentationId: Int?
    /// What a kiosk's schedule plays now (``ScheduleSwitcher/nowPlaying``): where `/` leads
    /// while it is set, ahead of ``defaultPresentationId``.
    package var scheduled: (@Sendable () -> (presentation: Int, slide: String)?)?
    /// The per-launch secret that pages must present to open the WebSocket.
    public var token: String
    /// The largest WebSocket message accepted, in bytes; a larger one closes the page's connection
    /// with code 1009 (the page reconnects).
    public var maxMessageSize: Int
    /// Most open bridge connections; more are refused with 503.
    public var maxConnections: Int
    /// Most concurrent requests (media, HTTP) in flight per connection; more are answered 429.
    public var maxInFlightPerConnection: Int
    /// Serve a plain WebSocket echo at `/__storybridge/echo` (token required): the baseline of the
    /// round-trip benchmark. Off by default.
    public var echoEndpoint = false
    /// Run all of each page connection's tasks (the page's queue, concurrent commands, the writer)
    /// on the event loop of its socket (``EventLoopTaskExecutor``). Off by default: then only the
    /// reading task runs there, while the page waits for its answers (``ReadingPlacement``), and
    /// module work runs on Swift's global executor; many busy connections get more answers a
    /// second that way (docs/BENCHMARKS.md, "The reading task on the event loop while the page
    /// waits" and "A page connection on its event loop").
    public var connectionsOnEventLoop = false
    /// The bound under which a frame the reading task asks for counts as already waiting
    /// (``ReadingPlacement``); nil: 20 µs. For tests, which judge the placement by what it does,
    /// not by how fast the machine they run on reads a frame (a debug build on a slow machine
    /// takes 50 µs to read a frame already there).
    package var waitingFrame: Duration?
    /// The collector the host uploads analytics to, shown by the inspector; `nil` when the host does
    /// not upload.
    public var uploadCollector: String?
    /// What `GET /__storybridge/health` reads; nil leaves the endpoint out.
    package var health: HealthSources?
    /// What the inspector's Record/Stop button drives; `nil` hides the button.
    package var recording: (any RecordingControl)?
    /// What the inspector's Rollback and Unpin buttons change; `nil` (no library) hides them.
    package var revisions: RevisionControl?
    /// Names the host answers to besides `127.0.0.1`, `localhost`, `[::1]` and ``host`` (see
    /// ``AllowedHostNames``): the names a LAN reaches it by. `*.example.lan` allows sub-domains.
    public var allowedHosts: [String] = []
    /// The control socket of `storybridge kiosk` (`/__storybridge/kiosk`); nil leaves it out.
    package var kioskControl: KioskControl?

    /// A configuration; the defaults listen on 127.0.0.1:8080 with a fresh launch token.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, defaultPresentationId: Int? = nil,
        token: String = ServerConfiguration.makeToken(), maxMessageSize: Int = 1 << 20, maxConnections: Int = 1024,
        maxInFlightPerConnection: Int = 64, echo: Bool = false
    ) {
        self.echoEndpoint = echo
        self.host = host
        self.port = port
        self.defaultPresentationId = defaultPresentationId
        self.token = token
        self.maxMessageSize = maxMessageSize
        self.maxConnections = maxConnections
        self.maxInFlightPerConnection = maxInFlightPerConnection
    }

    /// Whether `host` is a loopback address (binding anything else exposes the bridge).
    package static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// A fresh random token (128 bits, hex).
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// The HTTP + WebSocket server around a ``StoryBridgeHost``.
public struct StoryBridgeServer: Sendable {
    /// The host the server serves.
    public let host: StoryBridgeHost
    /// The server's configuration.
    public let configuration: ServerConfiguration
    /// The metrics served at `/__storybridge/metrics`.
    package let metrics: HostMetrics

    /// Creates a server for `host`, with metrics of its own served at `/__storybridge/metrics`.
    public init(host: StoryBridgeHost, configuration: ServerConfiguration) {
        self.init(host: host, configuration: configuration, metrics: HostMetrics())
    }

    /// Creates a server for `host`. `metrics` starts counting the host's requests; give the same
    /// metrics to the ``Uploader`` (as its factory) to count uploads too.
    package init(host: StoryBridgeHost, configuration: ServerConfiguration, metrics: HostMetrics) {
        self.host = host
        self.configuration = configuration
        self.metrics = metrics
        metrics.watch(host.bridge)
        metrics.watch(host.database.health)
    }

    /// Builds the Hummingbird application: the HTTP router (host-name check, read-only methods,
    /// presentation files, slides, the host's own endpoints) and the WebSocket router (bridge,
    /// inspector feed, echo). `onRunning` receives the bound port.
    public func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = host.logger
        logger[metadataKey: "component"] = "http"
        let token = LaunchToken(value: configuration.token)
        let names = AllowedHostNames(boundAddress: configuration.host, extra: configuration.allowedHosts)
        let refusals = RefusalLog(logger: logger, metrics: metrics)

        let router = Router(context: HostRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: HostNameMiddleware(names: names, refusals: refusals))
        router.add(middleware: ReadOnlyMiddleware())
        let files = PresentationFiles(library: host.library, fileIO: FileIO())
        router.add(middleware: VersionedFilesMiddleware(files: files))
        router.add(middleware: ByteRangeMiddleware(files: files, urlBasePath: "/p"))
        router.add(
            middleware: FileMiddleware(
                fileProvider: files, urlBasePath: "/p", cacheControl: CacheControl([(MediaType(type: .any), [.noCache])])))
        ContentRoutes(
            host: host, token: token, defaultPresentationId: configuration.defaultPresentationId, scheduled: configuration.scheduled
        ).add(to: router)
        ReservedRoutes(
            host: host, token: token, metrics: metrics, refusals: refusals, uploadCollector: configuration.uploadCollector,
            echo: configuration.echoEndpoint, health: configuration.health
        ).add(to: router)
        StoryContextRoutes(host: host, token: token, refusals: refusals).add(to: router)
        RecordingRoutes(control: configuration.recording, host: host, token: token, refusals: refusals).add(to: router)
        RevisionRoutes(control: configuration.revisions, token: token, refusals: refusals).add(to: router)
        PlayerButtonRoutes(host: host, token: token, refusals: refusals).add(to: router)

        let bridgeSocket = BridgeSocket(
            host: host, maxMessageSize: configuration.maxMessageSize, maxInFlight: configuration.maxInFlightPerConnection,
            metrics: metrics)
        EarlyRequests(bridge: bridgeSocket, token: token, refusals: refusals).add(to: router)
        let sockets = WebSocketRoutes(
            host: host,
            bridge: bridgeSocket,
            token: token, names: names, refusals: refusals,
            connections: ConnectionCounter(limit: configuration.maxConnections), echo: configuration.echoEndpoint,
            onEventLoop: configuration.connectionsOnEventLoop,
            waitingFrame: configuration.waitingFrame ?? ReadingPlacement.waitingFrame, kioskControl: configuration.kioskControl,
            logger: logger)
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: configuration.maxMessageSize, autoPing: .enabled(timePeriod: .seconds(30)))
        return Application(
            router: router,
            server: .http1WebSocketUpgradeClosingUnused(webSocketRouter: sockets.makeRouter(), configuration: .init(ws: webSocket)),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { [host, configuration] channel in
                let port = channel.localAddress?.port ?? 0
                host.addresses.add(host: configuration.host, port: port)
                await onRunning(port)
            },
            logger: logger
        )
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully.
    public func runUntilSignalled(onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        try await runUntilSignalled(alongside: [], onRunning: onRunning)
    }

    /// Starts the server in the background and returns once it listens; for tests and tools.
    public func start() async throws -> RunningServer {
        try await RunningServer.start(host: configuration.host, token: configuration.token) { onRunning in
            makeApplication(onRunning: onRunning)
        }
    }
}

/// A server started with ``StoryBridgeServer/start()``.
public struct RunningServer: Sendable {
    /// The bound port.
    public let port: Int
    /// The bound address.
    public let host: String
    /// The WebSocket token pages present.
    public let token: String
    let task: Task<Void, any Error>
    let group: ServiceGroup

    /// The base URL, e.g. `http://127.0.0.1:53121`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Runs the application `make` builds in the background and returns once it listens; `make`
    /// gets the callback to pass as the application's `onServerRunning` port hand-off. Used for
    /// the host and for other servers started the same way (the development collector).
    public static func start<App: ApplicationProtocol>(
        host: String, token: String, _ make: (@escaping @Sendable (Int) async -> Void) -> App
    ) async throws -> RunningServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = make { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        continuation.finish()
        return RunningServer(port: port, host: host, token: token, task: task, group: group)
    }

    /// Stops the server as Ctrl-C stops `serve` (a graceful shutdown: no new connections, idle
    /// ones closed, responses in flight finished) and waits until it has. Whatever has not finished
    /// within `grace` is cancelled.
    public func stop(grace: Duration = .seconds(5)) async {
        await group.triggerGracefulShutdown()
        let deadline = Task {
            try await Task.sleep(for: grace)
            task.cancel()
        }
        _ = await task.result
        deadline.cancel()
    }
}
