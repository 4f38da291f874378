/// What a metadata sync changed.
public struct MetadataSyncReport: Sendable, Hashable {
    /// A presentation whose fetch failed while the run went on.
    public struct Failure: Sendable, Hashable {
        public var id: Int
        public var reason: String
    }

    public var clients = 0
    /// Presentation objects fetched (every listed one not marked skip).
    public var fetched = 0
    /// Presentations seen for the first time.
    public var added: [Int] = []
    /// Presentations whose revision, package revision or package id changed.
    public var updated: [Int] = []
    /// Presentations withdrawn earlier that the service offers again.
    public var restored: [Int] = []
    /// Presentations gone from the service, withdrawn in this run (files kept).
    public var withdrawn: [Int] = []
    /// Presentations removed here with their files (gone past the grace period, or pruned).
    public var removed: [Int] = []
    /// Why presentations gone from the service were not withdrawn, when the guard held them back.
    public var heldBack: String?
    /// Presentations whose fetch failed (marked `failed (reason)`).
    public var failed: [Failure] = []
    /// Presentations marked `skip` (not fetched, not downloaded).
    public var skipped: [Int] = []
    /// Presentations fetched with nothing changed.
    public var unchanged = 0

    /// Whether the run left something undone that `sync --status` explains.
    public var isPartial: Bool { !failed.isEmpty || heldBack != nil }
}
