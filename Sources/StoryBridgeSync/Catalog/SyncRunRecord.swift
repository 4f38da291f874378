import Foundation

/// What the last `storybridge sync` left undone, kept in the data folder (`sync-last-run.json`)
/// so `sync --status` can say why a run was partial after it ended.
package struct SyncRunRecord: Codable, Sendable, Hashable {
    /// When the run ended.
    package var finishedAt: Date
    /// The exit status it ended with.
    package var exitStatus: Int32
    /// One line per thing left undone (a presentation that failed, removals held back...).
    package var notes: [String]

    package init(finishedAt: Date = Date(), exitStatus: Int32, notes: [String]) {
        self.finishedAt = finishedAt
        self.exitStatus = exitStatus
        self.notes = notes
    }

    /// The record of the last run in `paths`' data folder, if one was kept.
    package static func load(_ paths: SyncPaths) -> SyncRunRecord? {
        guard let data = try? Data(contentsOf: paths.lastRunFile) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(SyncRunRecord.self, from: data)
    }

    /// Replaces the record of the last run.
    package func save(_ paths: SyncPaths) throws(SyncError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw .storage("cannot encode the record of the run") }
        try AtomicFile.write(data, to: paths.lastRunFile)
    }
}
