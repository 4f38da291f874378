import Foundation
import Logging
import StoryBridge
import StoryBridgeServer

/// A real host on `127.0.0.1` and a free port, for tests: serves the given presentations and
/// stops when asked.
///
/// ```swift
/// let host = try await TestHost.start(presentationFolders: [demoFolder])
/// defer { Task { await host.stop() } }
/// let viewer = try await host.connectViewer(slide: "index.html")
/// ```
package struct TestHost: Sendable {
    /// The runtime (register custom modules on `runtime.bridge`).
    package let runtime: StoryBridgeHost
    /// The running server.
    package let server: RunningServer
    /// The server's metrics (also served at `/__storybridge/metrics`).
    package let metrics: HostMetrics
    /// The data folder the host made for itself (none was given); removed by ``stop()``.
    let temporaryDataFolder: URL?

    /// The base URL, e.g. `http://127.0.0.1:53121`.
    package var baseURL: String { server.baseURL }

    /// The inspector page's address, token included.
    package var inspectorURL: String { baseURL + "/__storybridge/inspector?token=" + server.token }

    /// Starts a host with the presentation folders given, numbered from 1 in order unless
    /// `catalogs` says otherwise. Give a ``ManualHostClock`` as `clock` to move the host's time.
    /// `maxDatabasePages` caps the database's size (SQLite `max_page_count`) to test a full disk.
    package static func start(
        presentationFolders: [URL], catalogs: [PresentationFolder.Catalog]? = nil, identity: HostIdentity = HostIdentity(),
        policy: ViewerPolicy = ViewerPolicy(closeDecision: .ask, restoreDecision: .new), dataDirectory: DataDirectory? = nil,
        http: HTTPModuleSettings = HTTPModuleSettings(), tables: [TableDefinition] = [], deepLink: DeepLink? = nil,
        commands: [ConfiguredCommand] = [],
        server serverConfiguration: ServerConfiguration = ServerConfiguration(port: 0),
        defaultDeadline: Duration = .seconds(10), clock: any HostClock = SystemHostClock(),
        lifetime: ViewerLifetime = ViewerLifetime(), maxDatabasePages: Int? = nil,
        configure: (StoryBridgeHost) throws -> Void = { _ in }
    ) async throws -> TestHost {
        var presentations: [Presentation] = []
        for (index, folder) in presentationFolders.enumerated() {
            let catalog = catalogs?[index] ?? PresentationFolder.Catalog(id: index + 1)
            presentations.append(try PresentationFolder.load(folder, catalog: catalog))
        }
        var logger = Logger(label: "storybridge.test")
        logger.logLevel = ProcessInfo.processInfo.environment["STORYBRIDGE_TEST_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
        var temporaryDataFolder: URL?
        let directory: DataDirectory
        if let dataDirectory {
            directory = dataDirectory
        } else {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-test-\(UUID().uuidString)")
            temporaryDataFolder = folder
            directory = DataDirectory(folder)
        }
        try directory.prepare()
        let runtime = StoryBridgeHost(
            library: PresentationLibrary(presentations),
            database: try StoryBridgeDatabase(file: directory.database, maxPageCount: maxDatabasePages),
            identity: identity, policy: policy, http: http, tables: tables, deepLink: deepLink, commands: commands,
            defaultDeadline: defaultDeadline, clock: clock, lifetime: lifetime, logger: logger)
        try configure(runtime)
        let metrics = HostMetrics()
        let server = try await StoryBridgeServer(host: runtime, configuration: serverConfiguration, metrics: metrics).start()
        return TestHost(runtime: runtime, server: server, metrics: metrics, temporaryDataFolder: temporaryDataFolder)
    }

    /// Connects a scripted viewer to `slide` of `presentationId` (see ``ViewerClient/connect(baseURL:token:presentationId:slide:viewerId:pageLoad:viaDeepLink:storyVersion:)``).
    package func connectViewer(
        presentationId: Int = 1, slide: String = "index.html", viewerId: String = UUID().uuidString,
        pageLoad: String = UUID().uuidString, viaDeepLink: Bool = false, storyVersion: String? = nil
    ) async throws -> ViewerClient {
        try await ViewerClient.connect(
            baseURL: baseURL, token: server.token, presentationId: presentationId, slide: slide, viewerId: viewerId,
            pageLoad: pageLoad, viaDeepLink: viaDeepLink, storyVersion: storyVersion)
    }

    /// The URL of a slide.
    package func slideURL(presentationId: Int = 1, slide: String = "index.html") -> String {
        baseURL + ContentPaths.slideURL(presentationId: presentationId, slide: slide)
    }

    /// Stops the server and removes the data folder it made for itself.
    package func stop() async {
        await server.stop()
        if let temporaryDataFolder { try? FileManager.default.removeItem(at: temporaryDataFolder) }
    }

    /// Runs `body` with this host and stops the host afterwards, whether `body` returns or throws.
    package func use<T>(_ body: (TestHost) async throws -> T) async throws -> T {
        try await withCleanup {
            try await body(self)
        } cleanup: {
            await stop()
        }
    }
}
