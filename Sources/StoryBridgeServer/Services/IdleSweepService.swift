import ServiceLifecycle
import StoryBridge

/// Keeps a long-running host bounded: every ``ViewerLifetime/sweepInterval`` of the host's clock
/// it runs ``StoryBridgeHost/sweepIdle()`` (idle viewers leave memory, the sessions of tabs that
/// left are finished by timeout). On graceful shutdown it writes the viewers still in memory to
/// the database, so their tabs continue after a restart.
public struct IdleSweepService: Service {
    /// The host swept.
    public let host: StoryBridgeHost

    /// Sweeps `host` on its own clock.
    public init(host: StoryBridgeHost) {
        self.host = host
    }

    /// Sweeps until graceful shutdown or cancellation, then keeps the viewers in the database.
    public func run() async throws {
        let host = self.host
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await host.clock.sleep(for: host.lifetime.sweepInterval)
                } catch {
                    return
                }
                await host.sweepIdle()
            }
        }
        await host.viewers.persistAll()
    }
}
