import ServiceLifecycle
import StoryBridge

/// A service that, every 250 ms of the hub's ``HostClock``, applies the presence deadlines
/// (``FleetRegistry/evaluate(now:)``) and looks for revoked devices
/// (``FleetRegistry/checkRevocations()``): a kiosk goes `offline` at most `3·I + 0.25 s` after its
/// last beat, and a revoked device's socket is closed within a second.
struct FleetTicker: Service {
    /// The registry.
    let registry: FleetRegistry
    /// The clock.
    let clock: any HostClock
    /// The period.
    var period: Duration = .milliseconds(250)

    /// A ticker for `registry`.
    init(registry: FleetRegistry, clock: any HostClock) {
        self.registry = registry
        self.clock = clock
    }

    /// Ticks until the service group shuts down.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: period)
                } catch {
                    return
                }
                await registry.evaluate(now: clock.instant)
                await registry.checkRevocations()
            }
        }
    }
}
