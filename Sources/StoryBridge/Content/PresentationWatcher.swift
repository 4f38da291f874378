import Foundation
import Logging

/// Live reload for a presentation served from a folder: polls the folder's files and, when one is
/// added, removed or changed, re-reads the presentation (slides, map, media) into the host and
/// reloads the viewers showing it (they keep their viewer id and session).
///
/// Polling (every ``interval``) needs no platform file-event API and notices edits made by any
/// tool, including editors that save by replacing the file.
public struct PresentationWatcher: Sendable {
    /// The folder watched.
    public let folder: URL
    /// The catalog facts (id, name...) the presentation was loaded with.
    public let catalog: PresentationFolder.Catalog
    /// Time between two looks at the folder.
    public let interval: Duration
    /// Most files looked at; a bigger folder is watched in its first files only (logged once).
    public let fileLimit: Int
    /// Where the watcher waits ``interval`` between two looks.
    public let clock: any HostClock

    /// One file's identity for change detection.
    struct FileStamp: Hashable {
        let modified: Date
        let size: Int
    }

    /// A watcher of `folder`, which looks every `interval` at up to `fileLimit` files, waiting on `clock`.
    public init(
        folder: URL, catalog: PresentationFolder.Catalog, interval: Duration = .milliseconds(500), fileLimit: Int = 20_000,
        clock: any HostClock = SystemHostClock()
    ) {
        self.clock = clock
        self.folder = folder
        self.catalog = catalog
        self.interval = interval
        self.fileLimit = fileLimit
    }

    /// Watches until the task is cancelled. Each look at the folder and each re-read runs on the
    /// blocking pool (``BlockingIO``): a walk of thousands of files never holds a cooperative thread.
    public func run(host: StoryBridgeHost) async {
        var known = await BlockingIO.run { fingerprint() }
        var reportedFailure: [String: FileStamp]?
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return }
            let now = await BlockingIO.run { fingerprint() }
            guard now != known else { continue }
            let changed = Self.changes(from: known, to: now)
            do {
                let presentation = try await BlockingIO.run { [folder, catalog] in try PresentationFolder.load(folder, catalog: catalog) }
                known = now
                reportedFailure = nil
                host.logger.info(
                    "live reload: \(changed.count) file(s) changed, presentation \(presentation.id) re-read",
                    metadata: ["files": "\(changed.prefix(10).joined(separator: ", "))"])
                await host.presentationChanged(presentation, files: changed)
            } catch {
                // Often a save in progress (index.html briefly missing): keep serving the last good
                // version, say so once, and try again at the next change.
                if reportedFailure != now {
                    host.logger.warning("live reload: cannot re-read the presentation", metadata: ["error": "\(error)"])
                    reportedFailure = now
                }
            }
        }
    }

    /// Relative path → stamp of every regular file under the folder (hidden ones skipped).
    func fingerprint() -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        let root = folder.standardizedFileURL.resolvingSymlinksInPath()
        guard
            let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey],
                options: [.skipsHiddenFiles])
        else { return stamps }
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let file as URL in walker {
            guard stamps.count < fileLimit else { break }
            guard let values = try? file.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey]),
                values.isRegularFile == true
            else { continue }
            let path = file.standardizedFileURL.resolvingSymlinksInPath().path
            let relative = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : file.lastPathComponent
            stamps[relative] = FileStamp(modified: values.contentModificationDate ?? .distantPast, size: values.fileSize ?? 0)
        }
        return stamps
    }

    static func changes(from old: [String: FileStamp], to new: [String: FileStamp]) -> [String] {
        let keys = Set(old.keys).union(new.keys)
        return keys.filter { old[$0] != new[$0] }.sorted()
    }
}
