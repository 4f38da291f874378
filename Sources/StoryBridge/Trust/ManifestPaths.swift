/// Where each path of a manifest's file list is, made once when the manifest is verified (beside
/// a delta update's fetch), so that the tree's comparison on the update's critical path does not
/// build it (``TreeHasher/difference(of:from:paths:)``).
package struct ManifestPaths: Sendable {
    /// Path → the position of its first entry in the manifest's `files`.
    let positions: [String: Int]

    /// The positions of `manifest`'s files.
    package init(_ manifest: PackageManifest) {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(manifest.files.count)
        for (position, file) in manifest.files.enumerated() where positions[file.path] == nil {
            positions[file.path] = position
        }
        self.positions = positions
    }
}
