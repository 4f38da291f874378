import Logging

/// The runtime without any server: a bridge with the built-in modules, the viewers, the
/// presentations and the identity values. A server (or a test) feeds it page connections.
public final class StoryBridgeHost: Sendable {
    /// The router; register custom modules here.
    public let bridge: Bridge
    /// The presentations.
    public let library: PresentationLibrary
    /// The viewers.
    package let viewers: ViewerRegistry
    /// Identity values for the Base module.
    public let identity: HostIdentity
    /// How questions to the user are answered.
    public let policy: ViewerPolicy
    /// The database (catalog and analytics).
    public let database: StoryBridgeDatabase
    /// Sessions, slide views, media views, custom events and the upload queue.
    public let analytics: AnalyticsStore
    /// Turns what viewers do into analytics records.
    package let sessions: SessionTracker
    /// The deep link the host was launched with, if any.
    package let deepLink: DeepLink?
    /// The host's own addresses, filled in by servers as they bind.
    package let addresses = HostAddresses()
    /// The host's logger.
    public let logger: Logger
    /// Every request, answer, event, connection and reload, for the inspector.
    package let feed = InspectorFeed()
    /// How long idle viewers and their sessions are kept; see ``sweepIdle()``.
    public let lifetime: ViewerLifetime
    /// Where the host reads time: analytics dates and durations, upload back-off, polling. Give a
    /// manual clock (`ManualHostClock` in StoryBridgeTesting) to move time in tests.
    public let clock: any HostClock
    /// Each presentation's Story context (`window._story`), shared by the app side and content.
    package let storyContext: StoryContextService
    /// The console lines of pages (`consolelog`): logged, shown in the inspector, rate-limited.
    package let pageConsole: PageConsole

    /// Creates a host with the built-in modules registered. `clock` is where it reads time
    /// (``SystemHostClock`` unless a test or an embedder gives another).
    public init(
        library: PresentationLibrary, database: StoryBridgeDatabase, identity: HostIdentity = HostIdentity(),
        policy: ViewerPolicy = ViewerPolicy(), outboxLimits: OutboxLimits = OutboxLimits(),
        http: HTTPModuleSettings = HTTPModuleSettings(), tables: [TableDefinition] = [],
        deepLink: DeepLink? = nil, commands: [ConfiguredCommand] = [], defaultDeadline: Duration = .seconds(10),
        clock: any HostClock = SystemHostClock(), lifetime: ViewerLifetime = ViewerLifetime(),
        storyContext: StoryContextDefinition = StoryContextDefinition(), pageConsole: PageConsoleSettings = PageConsoleSettings(),
        logger: Logger = Logger(label: "storybridge")
    ) {
        self.clock = clock
        self.lifetime = lifetime
        self.library = library
        library.namesMissingPresentations(from: database)
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
            store: analytics, identity: identity, policy: policy, viewers: viewers, library: library, clock: clock, logger: logger)
        let bridge = Bridge(defaultDeadline: defaultDeadline, clock: clock, logger: logger)
        self.bridge = bridge
        // A console line is shown in the feed by the page console, as a line (or not at all, over
        // the limit), instead of as the request that carried it; one refused with an answer shows.
        bridge.observe { exchange in
            if ConsoleLogModule.isConsoleCommand(exchange.request.command), exchange.response?.status ?? .success == .success { return }
            feed.record(.exchange(exchange))
        }
        for module in Self.builtInModules() { Self.register(module, on: bridge, logger: logger) }
        Self.register(
            PageAnswersModule(report: { [weak bridge] in bridge?.report(viewerId: $0, request: $1, response: $2) }), on: bridge,
            logger: logger)
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
        self.storyContext = StoryContextService(
            store: StoryContextStore(database: database, clock: clock), library: library, identity: identity, base: storyContext,
            viewers: viewers, logger: logger)
        Self.register(StoryContextModule(service: self.storyContext), on: bridge, logger: logger)
        self.pageConsole = PageConsole(settings: pageConsole, clock: clock, feed: feed)
        Self.register(ConsoleLogModule(console: self.pageConsole), on: bridge, logger: logger)
        // Each dialect's own modules (StoryCLM's are the built-in ones above).
        for dialect in DialectName.allCases {
            for module in dialect.hostModules(database: database, clock: clock) { Self.register(module, on: bridge, logger: logger) }
        }
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

    /// When the viewers of a changed presentation see the change.
    enum ReloadTiming: Sendable {
        /// At once (live reload of a folder being edited): a reload event, or the start slide when
        /// the viewer's slide no longer exists.
        case now
        /// At the viewer's next slide change, which loads the slide from the new version anyway: a
        /// new revision installed under a running kiosk never interrupts the slide on screen.
        case atNextSlide
    }

    /// Replaces a presentation with a newly read version of it and, with `reload` ``ReloadTiming/now``,
    /// reloads the connected viewers showing it; they keep their viewer id, state and session. A
    /// viewer whose slide no longer exists is sent to the start slide instead.
    func presentationChanged(_ presentation: Presentation, files: [String], reload: ReloadTiming = .now) async {
        library.add(presentation)
        feed.record(.reload(presentationId: presentation.id, files: files))
        guard case .now = reload else { return }
        for viewer in await viewers.all {
            let state = await viewer.state
            guard state.presentationId == presentation.id, await viewer.isConnected else { continue }
            if let slide = state.currentSlide, !presentation.hasSlide(slide) {
                let start = presentation.entrySlide
                await viewer.send(
                    .navigate(
                        presentationId: presentation.id, slide: start,
                        url: ContentPaths.slideURL(presentationId: presentation.id, slide: start), data: .emptyObject))
            } else {
                await viewer.send(HostEvent(name: "reload", data: ["files": .array(files.map(JSONValue.string))]))
            }
        }
    }

    /// Presentation `presentationId` was quarantined: the sessions of the viewers showing it end
    /// now (`endedBy` `quarantine`); the caller then reloads them onto the withheld page.
    func endSessions(quarantined presentationId: Int) async {
        for viewer in await viewers.all where await viewer.state.presentationId == presentationId {
            do {
                try await viewer.endSessionByQuarantine(with: sessions)
            } catch {
                logger.error("cannot end the session of a quarantined presentation", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The context for a request from `viewer`.
    package func context(for viewer: Viewer) -> BridgeContext {
        var logger = self.logger
        logger[metadataKey: "viewer"] = "\(viewer.id)"
        return BridgeContext(
            viewer: viewer, library: library, identity: identity, policy: policy, sessions: sessions, logger: logger)
    }

    /// Records that a page of `viewer` shows `slide` of `presentationId`: the viewer's navigation
    /// state, then the analytics (the slide view of the slide left, a new or restored session).
    /// Analytics failures are logged and do not stop the page. The same as ``enterPage(_:presentationId:slide:pageLoad:viaDeepLink:)``
    /// followed by ``recordPageLoad(_:)``.
    @discardableResult
    package func pageLoaded(
        _ viewer: Viewer, presentationId: Int, slide: String, pageLoad: String, viaDeepLink: Bool = false
    ) async -> Viewer.SlideEntry {
        let entered = await enterPage(
            viewer, presentationId: presentationId, slide: slide, pageLoad: pageLoad, viaDeepLink: viaDeepLink)
        await recordPageLoad(entered)
        return entered.entry
    }

    /// The memory half of a page load: the viewer now shows `slide` of `presentationId` (its
    /// current slide, history, navigation data and inbound deep link), so commands that read them
    /// answer for this page. Nothing is written; pass the result to ``recordPageLoad(_:)``. A new
    /// page load is announced to the inspector feed (a `connection` entry) here, before anything
    /// of it can be answered. `early`: entered by the page's early requests, before its socket
    /// (docs/PROTOCOL.md §3.9).
    package func enterPage(
        _ viewer: Viewer, presentationId: Int, slide: String, pageLoad: String, viaDeepLink: Bool = false, early: Bool = false
    ) async -> EnteredPage {
        let arrivesByDeepLink = viaDeepLink && deepLink?.presentationId == presentationId
        if arrivesByDeepLink, let deepLink {
            await viewer.arriveByDeepLink(deepLink, slide: slide, pageLoad: pageLoad)
        }
        let entry = await viewer.enterSlide(presentationId: presentationId, slide: slide, pageLoad: pageLoad, early: early)
        let sessionId = await viewer.state.sessionId
        let keepsSession =
            !entry.isNewPageLoad
            || (!arrivesByDeepLink && entry.cause != .deepLink && sessionId != nil && entry.previousPresentationId == presentationId)
        if entry.isNewPageLoad {
            // The feed hears of the new page load inside the viewer, with the note that lets
            // another path (its socket, its early requests) answer for it: none of its exchanges
            // can reach the feed before its arrival.
            let (feed, viewerId) = (feed, viewer.id)
            await viewer.noteEntered(pageLoad: pageLoad, keepsSession: keepsSession) {
                feed.record(.connection(viewerId: viewerId, connected: true, presentationId: presentationId, slide: slide))
            }
        }
        return EnteredPage(viewer: viewer, presentationId: presentationId, pageLoad: pageLoad, entry: entry, keepsSession: keepsSession)
    }

    /// The analytics half of a page load: the slide view of the slide left, and a new or restored
    /// session (SQLite writes). Failures are logged and do not stop the page.
    package func recordPageLoad(_ entered: EnteredPage) async {
        do {
            try await sessions.pageLoaded(entered.viewer, entry: entered.entry, presentationId: entered.presentationId)
            if entered.entry.isNewPageLoad { await entered.viewer.noteRecorded(pageLoad: entered.pageLoad) }
        } catch {
            logger.error(
                "analytics: cannot record the page load", metadata: ["error": "\(error)", "viewer": "\(entered.viewer.id)"])
        }
    }
}

/// A page load whose memory half is done (``StoryBridgeHost/enterPage(_:presentationId:slide:pageLoad:viaDeepLink:)``)
/// and whose analytics are still to be recorded.
package struct EnteredPage: Sendable {
    package let viewer: Viewer
    package let presentationId: Int
    /// The page load's id (the page's `load`).
    package let pageLoad: String
    package let entry: Viewer.SlideEntry
    /// Whether recording the page load leaves the viewer's session as it is: a reconnect, or a new
    /// slide of the presentation whose session is in progress (only the slide view of the slide
    /// left is written). Read-only commands of the page may then be answered before the recording.
    package let keepsSession: Bool
}
