import Foundation

/// When `GET /__storybridge/health` answers 503.
package struct HealthThresholds: Sendable, Hashable {
    /// Scheduled syncs failing for longer than this.
    package var syncFailingFor: Duration
    /// Less free disk than this in the data folder.
    package var minimumFreeBytes: Int64
    /// An upload queue whose oldest record waited longer than this.
    package var uploadBacklogAge: Duration

    package init(
        syncFailingFor: Duration = .seconds(3600), minimumFreeBytes: Int64 = 500 << 20, uploadBacklogAge: Duration = .seconds(86_400)
    ) {
        self.syncFailingFor = syncFailingFor
        self.minimumFreeBytes = minimumFreeBytes
        self.uploadBacklogAge = uploadBacklogAge
    }
}

/// What the scheduled sync reports to the health endpoint.
package struct SyncHealth: Sendable, Hashable {
    package var lastRunAt: Date?
    package var lastRunSucceeded: Bool?
    /// The first failed run since the last success.
    package var failingSince: Date?
    package var nextRunAt: Date?
    package var running: Bool

    package init(lastRunAt: Date?, lastRunSucceeded: Bool?, failingSince: Date?, nextRunAt: Date?, running: Bool) {
        self.lastRunAt = lastRunAt
        self.lastRunSucceeded = lastRunSucceeded
        self.failingSince = failingSince
        self.nextRunAt = nextRunAt
        self.running = running
    }
}

/// One deck as the health endpoint shows it: its id, the revision served, and its sync state.
package struct DeckHealth: Sendable, Hashable {
    package var id: Int
    package var revision: Int?
    /// `ready`, `update available`, `failed`... (nil when the deck is not synced).
    package var state: String?

    package init(id: Int, revision: Int?, state: String?) {
        self.id = id
        self.revision = revision
        self.state = state
    }
}

/// Where the health endpoint reads what is not the host's own: the scheduled sync, the decks'
/// sync states, the data folder.
package struct HealthSources: Sendable {
    package var thresholds: HealthThresholds
    /// The data folder whose free disk is reported.
    package var dataFolder: URL
    /// The scheduled sync's state; nil when serve does not sync.
    package var sync: (@Sendable () -> SyncHealth)?
    /// The decks with their sync states; nil to list the served presentations alone.
    package var decks: (@Sendable () async -> [DeckHealth])?

    package init(
        thresholds: HealthThresholds = HealthThresholds(), dataFolder: URL, sync: (@Sendable () -> SyncHealth)? = nil,
        decks: (@Sendable () async -> [DeckHealth])? = nil
    ) {
        self.thresholds = thresholds
        self.dataFolder = dataFolder
        self.sync = sync
        self.decks = decks
    }
}
