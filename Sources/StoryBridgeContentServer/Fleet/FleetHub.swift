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
    package let ticker: FleetTicker
    /// The history writer (a service of the server).
    package let history: HistoryWriter
    let route: FleetConnectRoute
    let hostNames: AllowedHostNames
    let logger: Logger

    init(
        directory: DataDirectory, clock: any HostClock, scheme: String, hostNames: AllowedHostNames, logger: Logger
    ) throws(ContentServerSetupError) {
        do {
            store = DeviceStore(database: try HubDatabase(directory: directory))
            history = HistoryWriter(database: store.database, clock: clock, logger: logger)
            registry = try FleetRegistry(store: store, clock: clock, logger: logger, history: history)
        } catch let error as HubStoreError {
            throw .invalidOption("the fleet hub cannot start: \(error.description)")
        } catch {
            throw .invalidOption("the fleet hub cannot start: \(error)")
        }
        ticker = FleetTicker(registry: registry, clock: clock)
        route = FleetConnectRoute(
            store: store, registry: registry, clock: clock, scheme: scheme, hostNames: hostNames, logger: logger)
        self.hostNames = hostNames
        self.logger = logger
    }

    /// Registers the HTTP routes of the hub on `router`: the connect route's refusals and the JSON
    /// routes of `/v1/fleet` for admins (checked with `tokens` and `accounts`).
    func registerRoutes(
        on router: Router<ContentRequestContext>, tokens: TokenService, accounts: ContentServerAccounts, clock: any HostClock
    ) {
        route.registerRefusals(on: router)
        FleetAPIRoutes(store: store, registry: registry, clock: clock).register(
            on: router,
            auth: FleetAuthMiddleware(audience: .admins, tokens: tokens, accounts: accounts, devices: store, clock: clock))
    }

    /// The WebSocket router: `/v1/fleet/connect` (which checks the `Host` itself, answering with a close code).
    func makeSocketRouter() -> Router<FleetSocketContext> {
        let router = Router(context: FleetSocketContext.self)
        route.registerSocket(on: router)
        return router
    }
}
