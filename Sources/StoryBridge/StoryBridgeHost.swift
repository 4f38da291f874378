import Logging

/// The runtime without any server: a bridge with the built-in modules, the viewers, the
/// presentations and the identity values. A server (or a test) feeds it page connections.
public final class StoryBridgeHost: Sendable {
    /// The router; register custom modules here.
    public let bridge: Bridge
    /// The presentations.
    public let library: PresentationLibrary
    /// The viewers.
    public let viewers: ViewerRegistry
    /// Identity values for the Base module.
    public let identity: HostIdentity
    /// How questions to the user are answered.
    public let policy: ViewerPolicy
    /// The host's logger.
    public let logger: Logger

    /// Creates a host with the built-in modules registered.
    public init(
        library: PresentationLibrary, identity: HostIdentity = HostIdentity(), policy: ViewerPolicy = ViewerPolicy(),
        defaultDeadline: Duration = .seconds(10), logger: Logger = Logger(label: "storybridge")
    ) {
        self.library = library
        self.policy = policy
        self.identity = identity
        self.logger = logger
        self.viewers = ViewerRegistry()
        self.bridge = Bridge(defaultDeadline: defaultDeadline, logger: logger)
        for module in Self.builtInModules() { bridge.register(module) }
    }

    /// The modules every host starts with.
    public static func builtInModules() -> [any BridgeModule] {
        [BaseModule(), PresentationModule(), CloseModule(), MapModule(), UIModule(), MediaModule(), ViewerChromeModule()]
    }

    /// The context for a request from `viewer`.
    public func context(for viewer: Viewer) -> BridgeContext {
        var logger = self.logger
        logger[metadataKey: "viewer"] = "\(viewer.id)"
        return BridgeContext(viewer: viewer, library: library, identity: identity, policy: policy, logger: logger)
    }
}
