/// What a metadata sync changed.
package struct MetadataSyncReport: Sendable, Hashable {
    /// A presentation whose fetch failed while the run went on.
    package struct Failure: Sendable, Hashable {
        package var id: Int
        package var reason: String
    }

    package var clients = 0
    /// Presentation objects fetched (every listed one not marked skip).
    package var fetched = 0
    /// Presentations seen for the first time.
    package var added: [Int] = []
    /// Presentations whose revision, package revision or package id changed.
    package var updated: [Int] = []
    /// Presentations withdrawn earlier that the service offers again.
    package var restored: [Int] = []
    /// Presentations gone from the service, withdrawn in this run (files kept).
    package var withdrawn: [Int] = []
    /// Presentations removed here with their files (gone past the grace period, or pruned).
    package var removed: [Int] = []
    /// Why presentations gone from the service were not withdrawn, when the guard held them back.
    var heldBack: String?
    /// Presentations whose fetch failed (marked `failed (reason)`).
    package var failed: [Failure] = []
    /// Presentations marked `skip` (not fetched, not downloaded).
    package var skipped: [Int] = []
    /// Presentations fetched with nothing changed.
    package var unchanged = 0

    /// Whether the run left something undone that `sync --status` explains.
    package var isPartial: Bool { !failed.isEmpty || heldBack != nil }
}
