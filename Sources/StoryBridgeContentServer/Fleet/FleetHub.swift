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
    let route: FleetConnectRoute
    let hostNames: AllowedHostNames
    let logger: Logger

    init(
        directory: DataDirectory, clock: any HostClock, scheme: String, hostNames: AllowedHostNames, logger: Logger
    ) throws(ContentServerSetupError) {
        do {
            store = DeviceStore(database: try HubDatabase(directory: directory))
            registry = try FleetRegistry(store: store, clock: clock, logger: logger)
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

    /// The WebSocket router: `/v1/fleet/connect` (which checks the `Host` itself, answering with a close code).
    func makeSocketRouter() -> Router<FleetSocketContext> {
        let router = Router(context: FleetSocketContext.self)
        route.registerSocket(on: router)
        return router
    }
}
