import Foundation

/// When `GET /__storybridge/health` answers 503.
public struct HealthThresholds: Sendable, Hashable {
    /// Scheduled syncs failing for longer than this.
    public var syncFailingFor: Duration
    /// Less free disk than this in the data folder.
    public var minimumFreeBytes: Int64
    /// An upload queue whose oldest record waited longer than this.
    public var uploadBacklogAge: Duration

    public init(
        syncFailingFor: Duration = .seconds(3600), minimumFreeBytes: Int64 = 500 << 20, uploadBacklogAge: Duration = .seconds(86_400)
    ) {
        self.syncFailingFor = syncFailingFor
        self.minimumFreeBytes = minimumFreeBytes
        self.uploadBacklogAge = uploadBacklogAge
    }
}

/// What the scheduled sync reports to the health endpoint.
public struct SyncHealth: Sendable, Hashable {
    public var lastRunAt: Date?
    public var lastRunSucceeded: Bool?
    /// The first failed run since the last success.
    public var failingSince: Date?
    public var nextRunAt: Date?
    public var running: Bool

    public init(lastRunAt: Date?, lastRunSucceeded: Bool?, failingSince: Date?, nextRunAt: Date?, running: Bool) {
        self.lastRunAt = lastRunAt
        self.lastRunSucceeded = lastRunSucceeded
        self.failingSince = failingSince
        self.nextRunAt = nextRunAt
        self.running = running
    }
}

/// One deck as the health endpoint shows it: its id, the revision served, and its sync state.
public struct DeckHealth: Sendable, Hashable {
    public var id: Int
    public var revision: Int?
    /// `ready`, `update available`, `failed`... (nil when the deck is not synced).
    public var state: String?

    public init(id: Int, revision: Int?, state: String?) {
        self.id = id
        self.revision = revision
        self.state = state
    }
}

/// Where the health endpoint reads what is not the host's own: the scheduled sync, the decks'
/// sync states, the data folder.
public struct HealthSources: Sendable {
    public var thresholds: HealthThresholds
    /// The data folder whose free disk is reported.
    public var dataFolder: URL
    /// The scheduled sync's state; nil when serve does not sync.
    public var sync: (@Sendable () -> SyncHealth)?
    /// The decks with their sync states; nil to list the served presentations alone.
    public var decks: (@Sendable () async -> [DeckHealth])?

    public init(
        thresholds: HealthThresholds = HealthThresholds(), dataFolder: URL, sync: (@Sendable () -> SyncHealth)? = nil,
        decks: (@Sendable () async -> [DeckHealth])? = nil
    ) {
        self.thresholds = thresholds
        self.dataFolder = dataFolder
        self.sync = sync
        self.decks = decks
    }
}
