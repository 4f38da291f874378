import Foundation
import StoryBridge

/// Where sync keeps its files in the data folder.
package struct SyncPaths: Sendable, Hashable {
    package let directory: DataDirectory

    package init(_ directory: DataDirectory) {
        self.directory = directory
    }

    /// The session (tokens), mode 0600.
    var sessionFolder: URL { directory.root }
    /// Partial downloads and their validators: `<presId>-r<revision>.zip.part` + `.json`.
    package var downloads: URL { directory.root.appendingPathComponent("downloads") }
    /// What the last run left undone (``SyncRunRecord``).
    var lastRunFile: URL { directory.root.appendingPathComponent("sync-last-run.json") }
    /// Held (flock) by a running sync.
    package var lockFile: URL { directory.root.appendingPathComponent("sync.lock") }

    /// The `source` a synced library row carries.
    package static let librarySourcePrefix = "sync:"
}
