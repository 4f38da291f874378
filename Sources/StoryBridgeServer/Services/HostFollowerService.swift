import ServiceLifecycle
import StoryBridge

/// A ``HostFollower`` as a service of the host's service group: it follows until the group shuts
/// down gracefully or is cancelled.
public struct HostFollowerService<Follower: HostFollower>: Service {
    /// What follows.
    public let follower: Follower
    /// The host kept in step.
    public let host: StoryBridgeHost

    /// Runs `follower` on behalf of `host`.
    public init(_ follower: Follower, host: StoryBridgeHost) {
        self.follower = follower
        self.host = host
    }

    /// Follows until graceful shutdown or cancellation.
    public func run() async throws {
        let follower = self.follower
        let host = self.host
        await cancelWhenGracefulShutdown { await follower.run(host: host) }
    }
}

/// Live reload of a served folder as a service.
public typealias PresentationWatcherService = HostFollowerService<PresentationWatcher>
/// The library catalog followed as a service (installs, syncs and removals by other processes).
package typealias LibraryCatalogWatcherService = HostFollowerService<LibraryCatalogWatcher>
/// Story context changes by other processes pushed to open pages, as a service.
package typealias StoryContextWatcherService = HostFollowerService<StoryContextWatcher>
