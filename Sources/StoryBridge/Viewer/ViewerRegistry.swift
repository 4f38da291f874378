/// All viewers the host knows, by id.
public actor ViewerRegistry {
    private var viewers: [String: Viewer] = [:]

    /// Creates an empty registry.
    public init() {}

    /// The viewer with this id, created on first use.
    public func viewer(id: String) -> Viewer {
        if let existing = viewers[id] { return existing }
        let viewer = Viewer(id: id)
        viewers[id] = viewer
        return viewer
    }

    /// The viewer with this id, if it exists.
    public func existingViewer(id: String) -> Viewer? { viewers[id] }

    /// All viewers.
    public var all: [Viewer] { Array(viewers.values) }
}
