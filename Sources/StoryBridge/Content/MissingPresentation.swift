/// A presentation asked for (by a link to `/p/<id>/` or the bridge's `open`) that is not
/// installed: typically a deck another one depends on and opens, not downloaded yet. Says which
/// one (its name from the sync catalog when known, else its id) and how to get it.
package struct MissingPresentation: Sendable, Hashable {
    /// The id asked for.
    package let id: Int
    /// Its name in the sync catalog, when `storybridge sync` has seen it.
    package let catalogName: String?

    package init(id: Int, catalogName: String?) {
        self.id = id
        self.catalogName = catalogName
    }

    /// The deck, named: “Name” (presentation 12), or presentation 12.
    package var title: String {
        catalogName.map { "“\($0)” (presentation \(id))" } ?? "presentation \(id)"
    }

    /// The command that downloads and installs it.
    package var command: String { "storybridge sync --content \(id)" }

    /// One sentence for an answer or a log line.
    package var message: String {
        "Presentation \(id)\(catalogName.map { " “\($0)”" } ?? "") is not installed on this host: get it with `\(command)`"
    }
}
