import Foundation

/// A presentation's package as published: its own id and revision (counters of their own, as on
/// StoryCLM, not the presentation's), the presentation revision it was built from, and the zip's
/// validators.
package struct PublishedPackage: Sendable, Hashable, Codable {
    /// The package's id (`sourcesFolder.id`): given once per presentation, from a counter.
    package var id: Int
    /// The package's revision (`sourcesFolder.revision`): 1 when first built, one more with every
    /// build after (a new presentation revision, or a republish under the same one).
    package var revision: Int
    package var presentationId: Int
    /// The presentation revision whose files the zip holds.
    package var presentationRevision: Int
    package var size: Int64
    /// The SHA-256 of the zip, hex: the strong `ETag`.
    var sha256: String
    /// When this revision was built (`sourcesFolder.created`/`updated`, `Last-Modified`).
    var publishedAt: Date

    /// The zip's name in the packages folder, also the last part of its blob link.
    package var fileName: String { "\(id)-r\(revision).zip" }
}

/// What the server knows of a presentation's package when a request asks for it.
enum PackageAvailability: Sendable, Equatable {
    /// The package of the presentation's current revision is built.
    case ready(PublishedPackage)
    /// It is being built (or waits its turn); ask again shortly.
    case building
    /// Building it failed (the log says why); it is tried again when the presentation changes.
    case failed
}

/// Progress of the package builds, for the start-up lines.
package struct PackageBuildProgress: Sendable, Hashable {
    /// Builds finished (or failed) since the server started.
    package var finished: Int
    /// Builds finished plus builds waiting or running.
    package var total: Int
    /// The presentation just built.
    package var presentationId: Int
    /// Whether its build failed.
    package var failed: Bool
}
