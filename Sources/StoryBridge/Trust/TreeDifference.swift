/// How a tree of files differs from a manifest: files whose size or SHA-256 differ, files the
/// manifest lists that are not there, and files (or other entries) there that it does not list.
package struct TreeDifference: Sendable, Hashable, CustomStringConvertible {
    /// A file whose bytes are not the listed ones.
    package struct Change: Sendable, Hashable {
        package var path: String
        package var expected: ManifestFile
        package var actualSize: Int64
        var actualSHA256: String
    }

    package var changed: [Change] = []
    package var missing: [String] = []
    package var added: [String] = []

    package init(changed: [Change] = [], missing: [String] = [], added: [String] = []) {
        self.changed = changed
        self.missing = missing
        self.added = added
    }

    /// The tree is exactly the manifest's.
    package var isEmpty: Bool { changed.isEmpty && missing.isEmpty && added.isEmpty }

    /// Every path named, changed first.
    package var paths: [String] { changed.map(\.path) + missing + added }

    /// Up to 20 findings, each naming its file ("'slides/b.html' differs (sha256 9f86… expected 2c26…)").
    package var description: String {
        var lines: [String] = changed.map { change in
            change.actualSize != change.expected.size
                ? "'\(change.path)' differs (\(change.actualSize) bytes, expected \(change.expected.size))"
                : "'\(change.path)' differs (sha256 \(change.actualSHA256.prefix(8))… expected \(change.expected.sha256.prefix(8))…)"
        }
        lines += missing.map { "'\($0)' is missing" }
        lines += added.map { "'\($0)' is not in the manifest" }
        let total = lines.count
        var text = lines.prefix(20).joined(separator: "; ")
        if total > 20 { text += "; and \(total - 20) more" }
        return text
    }
}
