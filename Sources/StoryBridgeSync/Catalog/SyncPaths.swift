import Foundation
import StoryBridge

/// Where sync keeps its files in the data folder.
public struct SyncPaths: Sendable, Hashable {
    public let directory: DataDirectory

    public init(_ directory: DataDirectory) {
        self.directory = directory
    }

    /// The session (tokens), mode 0600.
    public var sessionFolder: URL { directory.root }
    /// Partial downloads and their validators: `<presId>-r<revision>.zip.part` + `.json`.
    public var downloads: URL { directory.root.appendingPathComponent("downloads") }
    /// What the last run left undone (``SyncRunRecord``).
    public var lastRunFile: URL { directory.root.appendingPathComponent("sync-last-run.json") }
    /// Held (flock) by a running sync.
    public var lockFile: URL { directory.root.appendingPathComponent("sync.lock") }

    /// The `source` a synced library row carries.
    public static let librarySourcePrefix = "sync:"
}
