import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import StoryBridge

/// The fleet hub inside the content server (`--fleet`, docs/design/FLEET.md §5): the hub
/// database, the device store, the registry of kiosks, the connect route and the ticker.
package struct FleetHub: Sendable {
    /// The devices and their tokens.
    package let store: DeviceStore
    /// Each kiosk's state.
    package let registry: FleetRegistry
    /// The presence ticker (a service of the server).
    let ticker: FleetTicker
    /// The history writer (a service of the server).
    package let history: HistoryWriter
    /// The hub's own Prometheus series.
    package let metrics: FleetMetrics
    let route: FleetConnectRoute
    let hostNames: AllowedHostNames
    let logger: Logger

    /// The webhooks' dispatcher, when webhooks are configured.
    package let webhooks: WebhookDispatcher?

    /// A hub over `database`; kiosk events go to `webhooks` when given (`queueAlert`: when a
    /// kiosk's analytics queue is reported).
    init(
        database: HubDatabase, clock: any HostClock, scheme: String, hostNames: AllowedHostNames, logger: Logger,
        metrics: FleetMetrics, webhooks: WebhookDispatcher?,
        queueAlert: WebhookConfiguration.QueueAlert = WebhookConfiguration.QueueAlert()
    ) throws(ContentServerSetupError) {
        self.metrics = metrics
        self.webhooks = webhooks
        let store = DeviceStore(database: database)
        let history = HistoryWriter(database: database, clock: clock, logger: logger, metrics: metrics)
        self.store = store
        self.history = history
        do {
            registry = try FleetRegistry(
                store: store, clock: clock, logger: logger, history: history,
                alerts: webhooks.map { KioskWebhooks(store: store, dispatcher: $0) }, queueAlert: queueAlert)
        } catch {
            throw .invalidOption("the fleet hub cannot start: \(error)")
        }
        ticker = FleetTicker(registry: registry, clock: clock)
        route = FleetConnectRoute(
            store: store, registry: registry, clock: clock, scheme: scheme, hostNames: hostNames, logger: logger,
            metrics: metrics)
        self.hostNames = hostNames
        self.logger = logger
    }

    /// Registers the HTTP routes of the hub on `router`: the connect route's refusals, the JSON
    /// routes of `/v1/fleet` for admins (tokens checked with `tokens`, sessions and users with
    /// `accounts`), and the login, logout and overview pages (failed logins counted by
    /// `throttle`, the token endpoint's); `publicURL` is the server's `--public-url`.
    func registerRoutes(
        on router: Router<ContentRequestContext>, tokens: TokenService, accounts: ContentServerAccounts, throttle: LoginThrottle,
        publicURL: String?, clock: any HostClock
    ) {
        let sessions = AdminSessions(database: store.database, accounts: accounts, clock: clock)
        let origin = FleetOrigin(scheme: route.scheme, publicURL: publicURL)
        func auth(_ audience: FleetAuthMiddleware.Audience) -> FleetAuthMiddleware {
            FleetAuthMiddleware(
                audience: audience, tokens: tokens, accounts: accounts, devices: store, sessions: sessions, origin: origin, clock: clock)
        }
        route.registerRefusals(on: router)
        let api = FleetAPIRoutes(store: store, registry: registry, clock: clock)
        api.register(on: router, auth: auth(.admins))
        FleetPageRoutes(sessions: sessions, accounts: accounts, throttle: throttle, origin: origin, api: api, clock: clock)
            .register(on: router, pages: auth(.pages), logout: auth(.logout))
        FleetScreenshotRoutes(api: api, clock: clock).register(on: router, actions: auth(.actions), pages: auth(.pages))
        FleetEventsRoute(api: api, sessions: sessions, clock: clock, metrics: metrics).register(on: router, auth: auth(.admins))
        FleetPrometheusRoutes(
            store: store, registry: registry, metrics: metrics, pendingDeliveries: { [webhooks] in await webhooks?.pendingCount() ?? 0 }
        )
        .register(on: router, auth: auth(.scrapers))
        FleetStaticRoutes.register(on: router)
    }

    /// The WebSocket router: `/v1/fleet/connect` (which checks the `Host` itself, answering with a close code).
    func makeSocketRouter() -> Router<FleetSocketContext> {
        let router = Router(context: FleetSocketContext.self)
        route.registerSocket(on: router)
        return router
    }
}
