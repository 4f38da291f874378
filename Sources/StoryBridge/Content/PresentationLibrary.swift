import Synchronization

/// The presentations a host can show, by id. `open` switches between them.
public final class PresentationLibrary: Sendable {
    private let storage: Mutex<[Int: Presentation]>
    /// Where ``missing(id:)`` looks up the names of presentations that are not installed.
    private let catalog = Mutex<StoryBridgeDatabase?>(nil)

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

    /// The presentations the launcher shows (``PresentationFlags/isListed``), by `order` then id.
    public var listed: [Presentation] {
        all.filter(\.flags.isListed)
    }

    /// Lets ``missing(id:)`` name presentations from the sync catalog in `database`.
    func namesMissingPresentations(from database: StoryBridgeDatabase) {
        catalog.withLock { $0 = database }
    }

    /// What to say about presentation `id`, which is not in the library: its name from the sync
    /// catalog when known. Reads the database (only for a presentation that is not there).
    package func missing(id: Int) async -> MissingPresentation {
        let database = catalog.withLock { $0 }
        let name = try? await database?.read { db in try SyncCatalogFacts.name(presentationId: id, db: db) }
        return MissingPresentation(id: id, catalogName: name)
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
