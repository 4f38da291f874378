import Logging
import ServiceLifecycle
import UnixSignals

/// How storybridge's long-running processes (`serve`, `upload`, an embedding program) stop: their
/// services run in one `ServiceGroup` that SIGINT (Ctrl-C) and SIGTERM shut down gracefully.
///
/// On shutdown the group stops its services one at a time, the last one given first, each
/// finishing what it has in flight (the server its responses, the uploader its pass).
package enum HostServiceGroup {
    /// The signals that begin a graceful shutdown.
    package static let shutdownSignals: [UnixSignal] = [.sigterm, .sigint]

    /// A group running `services` until one of ``shutdownSignals`` arrives.
    package static func make(_ services: [any Service], logger: Logger) -> ServiceGroup {
        ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: shutdownSignals, logger: logger))
    }
}

extension StoryBridgeServer {
    /// Runs the server with `services` (the uploader, live reload...) in one service group until
    /// SIGINT or SIGTERM, then shuts down gracefully: `stoppingFirst` in reverse order, then the
    /// server (it stops listening and finishes its responses), then `services` in reverse order.
    /// `stoppingFirst` is for a service whose goodbye must not wait for the server's responses
    /// (serve's fleet agent: a hub told `bye` at once marks the kiosk stopped, not silent).
    /// `onRunning` receives the bound port. An error of the server or of a service stops the
    /// others and is thrown.
    public func runUntilSignalled(
        alongside services: [any Service], stoppingFirst: [any Service] = [], onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        var logger = host.logger
        logger[metadataKey: "component"] = "services"
        try await HostServiceGroup.make(services + [makeApplication(onRunning: onRunning)] + stoppingFirst, logger: logger).run()
    }
}
