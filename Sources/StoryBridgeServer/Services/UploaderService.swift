import ServiceLifecycle
import StoryBridge

/// The analytics ``Uploader`` as a service of the host's service group.
///
/// It publishes queued records until the group shuts down gracefully (SIGINT, SIGTERM), then
/// lets the pass in flight finish, so every record it was sending is answered and marked (sent,
/// retried or set aside) before it stops, and releases the uploader's HTTP client. What was not
/// sent stays queued for the next run: nothing is lost.
///
/// ```swift
/// let uploader = Uploader(store: host.analytics, settings: settings, identity: identity, logger: logger)
/// try await server.runUntilSignalled(alongside: [UploaderService(uploader)]) { port in ... }
/// ```
public struct UploaderService: Service {
    /// The uploader this service runs; the service owns it and shuts it down when it stops.
    public let uploader: Uploader

    /// Wraps `uploader`, which must not be run elsewhere.
    public init(_ uploader: Uploader) {
        self.uploader = uploader
    }

    /// Runs upload passes until graceful shutdown or cancellation, then releases the HTTP client.
    public func run() async throws {
        let uploader = self.uploader
        // Cancelling `run()` ends it between passes: a pass already started completes.
        await cancelWhenGracefulShutdown { await uploader.run() }
        await uploader.shutdown()
    }
}
