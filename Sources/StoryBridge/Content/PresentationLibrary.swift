import Synchronization

/// The presentations a host can show, by id. `open` switches between them.
public final class PresentationLibrary: Sendable {
    private let storage: Mutex<[Int: Presentation]>

    /// Creates a library holding `presentations`.
    public init(_ presentations: [Presentation] = []) {
        storage = Mutex(Dictionary(presentations.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }))
    }

    /// The presentation with this id.
    public func presentation(id: Int) -> Presentation? {
        storage.withLock { $0[id] }
    }

    /// All presentations, by `order` then id.
    public var all: [Presentation] {
        storage.withLock { Array($0.values) }.sorted { ($0.order, $0.id) < ($1.order, $1.id) }
    }

    /// Adds a presentation, or replaces the one with the same id.
    public func add(_ presentation: Presentation) {
        storage.withLock { $0[presentation.id] = presentation }
    }

    /// Removes a presentation.
    public func remove(id: Int) {
        _ = storage.withLock { $0.removeValue(forKey: id) }
    }
}
