import ServiceLifecycle
import StoryBridge

/// A service that, every 250 ms of the hub's ``HostClock``, applies the presence deadlines
/// (``FleetRegistry/evaluate(now:)``) and looks for revoked devices
/// (``FleetRegistry/checkRevocations()``): a kiosk goes `offline` at most `3·I + 0.25 s` after its
/// last beat, and a revoked device's socket is closed within a second.
package struct FleetTicker: Service {
    /// The registry.
    package let registry: FleetRegistry
    /// The clock.
    package let clock: any HostClock
    /// The period.
    package var period: Duration = .milliseconds(250)

    /// A ticker for `registry`.
    package init(registry: FleetRegistry, clock: any HostClock) {
        self.registry = registry
        self.clock = clock
    }

    /// Ticks until the service group shuts down.
    package func run() async throws {
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
