import Foundation
import StoryBridge
import StoryBridgeServer
import StoryBridgeSync

/// The inspector's Rollback and Unpin buttons for `storybridge serve` of the library: the same
/// change as `storybridge rollback` / `unpin`, under the same sync lock (a sync installing a
/// revision meanwhile would replace the rolled-back one), refused while a sync holds it.
enum ServeRevisions {
    static func control(store: LibraryStore?, directory: DataDirectory) -> RevisionControl? {
        guard let store else { return nil }
        let lockFile = SyncPaths(directory).lockFile
        return RevisionControl(store: store) { change in
            let lock: SyncLock
            do {
                lock = try SyncLock(file: lockFile)
            } catch let error as SyncError {
                if case .busy = error { throw SyncIsRunning() }
                throw error
            }
            try withExtendedLifetime(lock) { try change() }
        }
    }
}
