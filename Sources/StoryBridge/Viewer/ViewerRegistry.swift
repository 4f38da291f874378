/// All viewers the host knows, by id.
public actor ViewerRegistry {
    private var viewers: [String: Viewer] = [:]
    private let eventObserver: (@Sendable (String, HostEvent) -> Void)?

    /// Creates an empty registry; `eventObserver` is told of every event sent to any viewer.
    public init(eventObserver: (@Sendable (String, HostEvent) -> Void)? = nil) {
        self.eventObserver = eventObserver
    }

    /// The viewer with this id, created on first use.
    public func viewer(id: String) -> Viewer {
        if let existing = viewers[id] { return existing }
        let viewer = Viewer(id: id, eventObserver: eventObserver)
        viewers[id] = viewer
        return viewer
    }

    /// The viewer with this id, if it exists.
    public func existingViewer(id: String) -> Viewer? { viewers[id] }

    /// All viewers.
    public var all: [Viewer] { Array(viewers.values) }
}
