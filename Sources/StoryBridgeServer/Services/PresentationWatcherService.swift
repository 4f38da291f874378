import ServiceLifecycle
import StoryBridge

/// Live reload (a ``PresentationWatcher`` over a served folder) as a service of the host's
/// service group: it watches until the group shuts down gracefully or is cancelled.
public struct PresentationWatcherService: Service {
    /// The folder watcher.
    public let watcher: PresentationWatcher
    /// The host whose presentation and viewers are reloaded when the folder changes.
    public let host: StoryBridgeHost

    /// Watches `watcher`'s folder on behalf of `host`.
    public init(_ watcher: PresentationWatcher, host: StoryBridgeHost) {
        self.watcher = watcher
        self.host = host
    }

    /// Watches until graceful shutdown or cancellation.
    public func run() async throws {
        let watcher = self.watcher
        let host = self.host
        await cancelWhenGracefulShutdown { await watcher.run(host: host) }
    }
}
