/// A presentation asked for (by a link to `/p/<id>/` or the bridge's `open`) that is not
/// installed: typically a deck another one depends on and opens, not downloaded yet. Says which
/// one (its name from the sync catalog when known, else its id) and how to get it.
public struct MissingPresentation: Sendable, Hashable {
    /// The id asked for.
    public let id: Int
    /// Its name in the sync catalog, when `storybridge sync` has seen it.
    public let catalogName: String?

    public init(id: Int, catalogName: String?) {
        self.id = id
        self.catalogName = catalogName
    }

    /// The deck, named: “Name” (presentation 12), or presentation 12.
    public var title: String {
        catalogName.map { "“\($0)” (presentation \(id))" } ?? "presentation \(id)"
    }

    /// The command that downloads and installs it.
    public var command: String { "storybridge sync --content \(id)" }

    /// One sentence for an answer or a log line.
    public var message: String {
        "Presentation \(id)\(catalogName.map { " “\($0)”" } ?? "") is not installed on this host: get it with `\(command)`"
    }
}
