import ServiceLifecycle
import StoryBridge

/// The library catalog watcher (installs, syncs and removals made by other processes show up in a
/// running `serve` of the library) as a service of the host's service group.
public struct LibraryCatalogWatcherService: Service {
    /// The catalog watcher.
    public let watcher: LibraryCatalogWatcher
    /// The host whose library and viewers follow the catalog.
    public let host: StoryBridgeHost

    /// Follows `watcher`'s catalog on behalf of `host`.
    public init(_ watcher: LibraryCatalogWatcher, host: StoryBridgeHost) {
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
