import Logging

/// The runtime without any server: a bridge with the built-in modules, the viewers, the
/// presentations and the identity values. A server (or a test) feeds it page connections.
public final class StoryBridgeHost: Sendable {
    /// The router; register custom modules here.
    public let bridge: Bridge
    /// The presentations.
    public let library: PresentationLibrary
    /// The viewers.
    public let viewers: ViewerRegistry
    /// Identity values for the Base module.
    public let identity: HostIdentity
    /// How questions to the user are answered.
    public let policy: ViewerPolicy
    /// The database (catalog and analytics).
    public let database: StoryBridgeDatabase
    /// Sessions, slide views, media views, custom events and the upload queue.
    public let analytics: AnalyticsStore
    /// Turns what viewers do into analytics records.
    public let sessions: SessionTracker
    /// The deep link the host was launched with, if any.
    public let deepLink: DeepLink?
    /// The host's own addresses, filled in by servers as they bind.
    public let addresses = HostAddresses()
    /// The host's logger.
    public let logger: Logger
    /// Every request, answer, event, connection and reload, for the inspector.
    public let feed = InspectorFeed()
    /// How long idle viewers and their sessions are kept; see ``sweepIdle()``.
    public let lifetime: ViewerLifetime
    /// Where the host reads time: analytics dates and durations, upload back-off, polling. Give a
    /// manual clock (`ManualHostClock` in StoryBridgeTesting) to move time in tests.
    public let clock: any HostClock

    /// Creates a host with the built-in modules registered. `clock` is where it reads time
    /// (``SystemHostClock`` unless a test or an embedder gives another).
    public init(
        library: PresentationLibrary, database: StoryBridgeDatabase, identity: HostIdentity = HostIdentity(),
        policy: ViewerPolicy = ViewerPolicy(), outboxLimits: OutboxLimits = OutboxLimits(),
        http: HTTPModuleSettings = HTTPModuleSettings(), tables: [TableDefinition] = [],
        deepLink: DeepLink? = nil, commands: [ConfiguredCommand] = [], defaultDeadline: Duration = .seconds(10),
        clock: any HostClock = SystemHostClock(), lifetime: ViewerLifetime = ViewerLifetime(),
        logger: Logger = Logger(label: "storybridge")
    ) {
        self.clock = clock
        self.lifetime = lifetime
        self.library = library
        self.policy = policy
        self.identity = identity
        self.logger = logger
        self.database = database
        let feed = self.feed
        let viewers = ViewerRegistry(store: ViewerStore(database: database), clock: clock, logger: logger) { viewerId, event in
            feed.record(.event(viewerId: viewerId, event))
        }
        Self.logStorageHealth(database, logger: logger)
        self.viewers = viewers
        self.analytics = AnalyticsStore(database: database, limits: outboxLimits, clock: clock)
        self.sessions = SessionTracker(
            store: analytics, identity: identity, policy: policy, viewers: viewers, clock: clock, logger: logger)
        let bridge = Bridge(defaultDeadline: defaultDeadline, clock: clock, logger: logger)
        self.bridge = bridge
        bridge.observe { feed.record(.exchange($0)) }
        for module in Self.builtInModules() { Self.register(module, on: bridge, logger: logger) }
        Self.register(HTTPModule(settings: http, reserved: addresses), on: bridge, logger: logger)
        let tablesStore = TablesStore(database: database, clock: clock)
        do {
            try tablesStore.declareWhileOpening(tables)
        } catch {
            logger.error("tables: cannot declare the configured tables", metadata: ["error": "\(error)"])
        }
        Self.register(TablesModule(store: tablesStore), on: bridge, logger: logger)
        self.deepLink = deepLink
        Self.register(DeepLinkingModule(), on: bridge, logger: logger)
        if !commands.isEmpty { Self.register(ConfiguredCommandsModule(commands), on: bridge, logger: logger) }
    }

    /// Logs the start and end of each episode of failing writes, once each.
    private static func logStorageHealth(_ database: StoryBridgeDatabase, logger: Logger) {
        database.health.observe { change in
            switch change {
            case .degraded(let error):
                logger.warning(
                    "storage: writes are failing; commands that save answer a failure until this is fixed, reads go on",
                    metadata: ["error": "\(error)"])
            case .recovered:
                logger.notice("storage: writes succeed again")
            case .writeFailed:
                break
            }
        }
    }

    /// Registers a module the host starts with; one the bridge refuses (a command declared twice or
    /// without a name) is left out and logged as an error.
    private static func register(_ module: any BridgeModule, on bridge: Bridge, logger: Logger) {
        do {
            try bridge.register(module)
        } catch {
            logger.error("module refused", metadata: ["module": "\(module.name)", "error": "\(error)"])
        }
    }

    /// The modules every host starts with.
    public static func builtInModules() -> [any BridgeModule] {
        [
            BaseModule(), PresentationModule(), CloseModule(), MapModule(), UIModule(), MediaModule(), SessionsModule(),
            CustomEventsModule(), ViewerChromeModule(),
        ]
    }

    /// Replaces a presentation with a newly read version of it (live reload) and reloads the
    /// connected viewers showing it; they keep their viewer id, state and session. A viewer whose
    /// slide no longer exists is sent to the start slide instead.
    public func presentationChanged(_ presentation: Presentation, files: [String]) async {
        library.add(presentation)
        feed.record(.reload(presentationId: presentation.id, files: files))
        for viewer in await viewers.all {
            let state = await viewer.state
            guard state.presentationId == presentation.id, await viewer.isConnected else { continue }
            if let slide = state.currentSlide, !presentation.hasSlide(slide) {
                let start = Presentation.startSlide
                await viewer.send(
                    .navigate(
                        presentationId: presentation.id, slide: start,
                        url: ContentPaths.slideURL(presentationId: presentation.id, slide: start), data: .emptyObject))
            } else {
                await viewer.send(HostEvent(name: "reload", data: ["files": .array(files.map(JSONValue.string))]))
            }
        }
    }

    /// The context for a request from `viewer`.
    public func context(for viewer: Viewer) -> BridgeContext {
        var logger = self.logger
        logger[metadataKey: "viewer"] = "\(viewer.id)"
        return BridgeContext(
            viewer: viewer, library: library, identity: identity, policy: policy, sessions: sessions, logger: logger)
    }

    /// Records that a page of `viewer` shows `slide` of `presentationId`: the viewer's navigation
    /// state, then the analytics (the slide view of the slide left, a new or restored session).
    /// Analytics failures are logged and do not stop the page.
    @discardableResult
    public func pageLoaded(
        _ viewer: Viewer, presentationId: Int, slide: String, pageLoad: String, viaDeepLink: Bool = false
    ) async -> Viewer.SlideEntry {
        if viaDeepLink, let deepLink, deepLink.presentationId == presentationId {
            await viewer.arriveByDeepLink(deepLink, slide: slide, pageLoad: pageLoad)
        }
        let entry = await viewer.enterSlide(presentationId: presentationId, slide: slide, pageLoad: pageLoad)
        do {
            try await sessions.pageLoaded(viewer, entry: entry, presentationId: presentationId)
        } catch {
            logger.error("analytics: cannot record the page load", metadata: ["error": "\(error)", "viewer": "\(viewer.id)"])
        }
        return entry
    }
}
