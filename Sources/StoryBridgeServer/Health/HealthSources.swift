import Foundation
import StoryBridge

/// When `GET /__storybridge/health` answers 503.
package struct HealthThresholds: Sendable, Hashable {
    /// Scheduled syncs failing for longer than this.
    package var syncFailingFor: Duration
    /// Less free disk than this in the data folder.
    package var minimumFreeBytes: Int64
    /// An upload queue whose oldest record waited longer than this.
    package var uploadBacklogAge: Duration
    /// Trust notices (a deck served past its manifest's expiry) count as problems
    /// (`serve --health-strict-trust`); by default they leave the host healthy.
    package var strictTrust: Bool

    package init(
        syncFailingFor: Duration = .seconds(3600), minimumFreeBytes: Int64 = 500 << 20, uploadBacklogAge: Duration = .seconds(86_400),
        strictTrust: Bool = false
    ) {
        self.syncFailingFor = syncFailingFor
        self.minimumFreeBytes = minimumFreeBytes
        self.uploadBacklogAge = uploadBacklogAge
        self.strictTrust = strictTrust
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

/// One deck as the health endpoint shows it: its id, the revision served, its sync state and
/// what its files were checked against.
package struct DeckHealth: Sendable, Hashable {
    package var id: Int
    package var revision: Int?
    /// `ready`, `update available`, `failed`... (nil when the deck is not synced).
    package var state: String?
    /// Signed, unsigned, local folder...; nil for a deck listed but not served.
    package var trust: DeckTrustHealth?

    package init(id: Int, revision: Int?, state: String?, trust: DeckTrustHealth? = nil) {
        self.id = id
        self.revision = revision
        self.state = state
        self.trust = trust
    }
}

/// What the health endpoint says of a served deck's files (docs/design/TRUST.md 2.6), without key
/// ids or hashes (those are in `storybridge verify --json`).
package struct DeckTrustHealth: Sendable, Hashable {
    /// `signed`, `unsigned`, `local folder` (served from disk, never verified), `quarantined`, or
    /// `unverified` (installed before signed packages, no record).
    package var status: String
    /// The signed manifest's end of validity.
    package var expires: Date?
    /// When its files were last checked, and what was found (`ok`...).
    var lastVerified: Date?
    package var result: String?

    package init(status: String, expires: Date? = nil, lastVerified: Date? = nil, result: String? = nil) {
        self.status = status
        self.expires = expires
        self.lastVerified = lastVerified
        self.result = result
    }

    /// What a served revision's `packageTrust` row says: `quarantined` (with its reason as the
    /// result), else `signed` (with the manifest's expiry) or `unsigned`.
    package init(_ row: InstalledTrust) {
        self.init(
            status: row.state == "quarantined" ? "quarantined" : row.signed ? "signed" : "unsigned",
            expires: row.signed ? row.expires : nil, lastVerified: row.lastVerifiedAt,
            result: row.state == "quarantined" ? row.quarantineReason : row.lastVerifyResult)
    }

    /// The deck's `trust` object of the health endpoint and `sync --status --json`: status, expiry
    /// (and whether it has passed at `now`), the last check and its result; no key ids or hashes.
    package func json(now: Date) -> JSONValue {
        var members: [String: JSONValue] = ["status": .string(status)]
        if let expires {
            members["expires"] = .string(ISO8601DateFormatter().string(from: expires))
            members["expired"] = .bool(now >= expires)
        }
        if let lastVerified { members["lastVerified"] = .string(ISO8601DateFormatter().string(from: lastVerified)) }
        if let result { members["result"] = .string(result) }
        return .object(members)
    }

    /// A deck served from a folder on disk: not signed, not verified.
    static let localFolder = DeckTrustHealth(status: "local folder")
    /// A deck installed before signed packages existed.
    package static let unverified = DeckTrustHealth(status: "unverified")
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
