import Foundation
import StoryBridge

/// `{"type": "beat", …}`: a kiosk's state, sent every interval (docs/design/FLEET.md §4.3).
///
/// Sections that are not configured (`sync`, `schedule`, `kiosk`), a source that did not answer
/// within the beat's budget, and `hubUnreachable` outside an outage are written as `null`.
package struct Beat: Codable, Sendable, Equatable {
    /// Counts up from 1 at each start of `serve`.
    package var seq: Int
    /// The kiosk's wall clock when the beat was made.
    package var sentAt: Date
    /// The `instance` of the hello.
    package var instance: String
    /// Seconds since `serve` started.
    package var uptimeSeconds: Int
    /// The storybridge version.
    package var version: String
    /// The kiosk's name.
    package var name: String
    /// The kiosk's own labels.
    package var labels: [String: String]
    /// The decks served, with their revisions and pins.
    package var decks: [Deck]?
    /// The connected (and recently seen) viewers.
    package var viewers: Viewers?
    /// The analytics upload queue.
    package var analytics: Analytics?
    /// The scheduled sync's last run (null without `--sync-every`).
    package var sync: Sync?
    /// Free disk space in the data folder.
    package var disk: Disk?
    /// The process's and machine's memory.
    package var memory: Memory?
    /// The health endpoint's verdict.
    package var health: Health?
    /// The schedule's current entry (null without a schedule).
    package var schedule: ScheduleNow?
    /// `storybridge kiosk`'s state (null when none is attached).
    package var kiosk: KioskStatus?
    /// Warnings and errors since the last beat.
    package var log: Log
    /// Set in the first beat that got through after the hub could not be reached.
    package var hubUnreachable: HubUnreachable?
    /// The host's Prometheus counters and gauges, series summed.
    package var figures: [String: Double]?
    /// The newest signed checkpoint of the host's audit log (docs/design/TRUST.md 4.5), the
    /// document as uploaded; null before the first.
    package var checkpoint: JSONValue?
    /// Whether viewers, log entries or figures were left out to keep the beat under 64 KiB.
    package var truncated: Bool

    /// A beat; every section but the identity may be nil.
    package init(
        seq: Int, sentAt: Date, instance: String, uptimeSeconds: Int, version: String, name: String,
        labels: [String: String] = [:], decks: [Deck]? = nil, viewers: Viewers? = nil, analytics: Analytics? = nil,
        sync: Sync? = nil, disk: Disk? = nil, memory: Memory? = nil, health: Health? = nil, schedule: ScheduleNow? = nil,
        kiosk: KioskStatus? = nil, log: Log = Log(), hubUnreachable: HubUnreachable? = nil, figures: [String: Double]? = nil,
        checkpoint: JSONValue? = nil, truncated: Bool = false
    ) {
        self.seq = seq
        self.sentAt = sentAt
        self.instance = instance
        self.uptimeSeconds = uptimeSeconds
        self.version = version
        self.name = name
        self.labels = labels
        self.decks = decks
        self.viewers = viewers
        self.analytics = analytics
        self.sync = sync
        self.disk = disk
        self.memory = memory
        self.health = health
        self.schedule = schedule
        self.kiosk = kiosk
        self.log = log
        self.hubUnreachable = hubUnreachable
        self.figures = figures
        self.checkpoint = checkpoint
        self.truncated = truncated
    }

    private enum CodingKeys: String, CodingKey {
        case seq, sentAt, instance, uptimeSeconds, version, name, labels, decks, viewers, analytics, sync, disk, memory,
            health, schedule, kiosk, log, hubUnreachable, figures, checkpoint, truncated
    }

    /// Writes every member in the documented order, absent sections as `null`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(sentAt, forKey: .sentAt)
        try container.encode(instance, forKey: .instance)
        try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try container.encode(version, forKey: .version)
        try container.encode(name, forKey: .name)
        try container.encode(labels, forKey: .labels)
        try container.encode(decks, forKey: .decks)
        try container.encode(viewers, forKey: .viewers)
        try container.encode(analytics, forKey: .analytics)
        try container.encode(sync, forKey: .sync)
        try container.encode(disk, forKey: .disk)
        try container.encode(memory, forKey: .memory)
        try container.encode(health, forKey: .health)
        try container.encode(schedule, forKey: .schedule)
        try container.encode(kiosk, forKey: .kiosk)
        try container.encode(log, forKey: .log)
        try container.encode(hubUnreachable, forKey: .hubUnreachable)
        try container.encode(figures, forKey: .figures)
        try container.encode(checkpoint, forKey: .checkpoint)
        try container.encode(truncated, forKey: .truncated)
    }

    /// Reads a beat; members this side does not know are ignored, missing optional ones are nil.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        sentAt = try container.decode(Date.self, forKey: .sentAt)
        instance = try container.decode(String.self, forKey: .instance)
        uptimeSeconds = try container.decodeIfPresent(Int.self, forKey: .uptimeSeconds) ?? 0
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? ""
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        labels = try container.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
        decks = try container.decodeIfPresent([Deck].self, forKey: .decks)
        viewers = try container.decodeIfPresent(Viewers.self, forKey: .viewers)
        analytics = try container.decodeIfPresent(Analytics.self, forKey: .analytics)
        sync = try container.decodeIfPresent(Sync.self, forKey: .sync)
        disk = try container.decodeIfPresent(Disk.self, forKey: .disk)
        memory = try container.decodeIfPresent(Memory.self, forKey: .memory)
        health = try container.decodeIfPresent(Health.self, forKey: .health)
        schedule = try container.decodeIfPresent(ScheduleNow.self, forKey: .schedule)
        kiosk = try container.decodeIfPresent(KioskStatus.self, forKey: .kiosk)
        log = try container.decodeIfPresent(Log.self, forKey: .log) ?? Log()
        hubUnreachable = try container.decodeIfPresent(HubUnreachable.self, forKey: .hubUnreachable)
        figures = try container.decodeIfPresent([String: Double].self, forKey: .figures)
        checkpoint = try container.decodeIfPresent(JSONValue.self, forKey: .checkpoint)
        truncated = try container.decodeIfPresent(Bool.self, forKey: .truncated) ?? false
    }
}

extension Beat {
    /// One served deck: `{"id", "name", "revision", "pinnedRevision", "state"}`.
    package struct Deck: Codable, Sendable, Equatable {
        /// The presentation id.
        package var id: Int
        /// Its name.
        package var name: String
        /// The revision served.
        package var revision: Int?
        /// The pinned revision, or null.
        package var pinnedRevision: Int?
        /// `ready`, `update available`, … (as `storybridge list` words it).
        package var state: String

        /// A deck.
        package init(id: Int, name: String, revision: Int?, pinnedRevision: Int? = nil, state: String = "ready") {
            self.id = id
            self.name = name
            self.revision = revision
            self.pinnedRevision = pinnedRevision
            self.state = state
        }

        private enum CodingKeys: String, CodingKey { case id, name, revision, pinnedRevision, state }

        /// Writes `revision` and `pinnedRevision` as null when absent.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(revision, forKey: .revision)
            try container.encode(pinnedRevision, forKey: .pinnedRevision)
            try container.encode(state, forKey: .state)
        }
    }

    /// `{"count", "list"}`: `count` is every viewer, `list` at most ``limit`` of them.
    package struct Viewers: Codable, Sendable, Equatable {
        /// The most viewers a beat lists.
        package static let limit = 32
        /// How many viewers the host knows.
        package var count: Int
        /// Connected first, then the most recently seen.
        package var list: [Viewer]

        /// Viewers.
        package init(count: Int, list: [Viewer]) {
            self.count = count
            self.list = list
        }
    }

    /// One viewer: `{"viewer", "connected", "presentation", "slide", "since"}`.
    package struct Viewer: Codable, Sendable, Equatable {
        /// The viewer id.
        package var viewer: String
        /// Whether its page is connected now.
        package var connected: Bool
        /// The presentation it shows.
        package var presentation: Int?
        /// The slide it shows.
        package var slide: String?
        /// Since when it shows that slide (or was last seen).
        package var since: Date?

        /// A viewer.
        package init(viewer: String, connected: Bool, presentation: Int?, slide: String?, since: Date?) {
            self.viewer = viewer
            self.connected = connected
            self.presentation = presentation
            self.slide = slide
            self.since = since
        }
    }

    /// `{"queued", "oldestAgeSeconds"}`.
    package struct Analytics: Codable, Sendable, Equatable {
        /// Records waiting for upload.
        package var queued: Int
        /// The oldest's age in seconds, null when none waits.
        package var oldestAgeSeconds: Int?

        /// The queue.
        package init(queued: Int, oldestAgeSeconds: Int?) {
            self.queued = queued
            self.oldestAgeSeconds = oldestAgeSeconds
        }

        private enum CodingKeys: String, CodingKey { case queued, oldestAgeSeconds }

        /// Writes `oldestAgeSeconds` as null when absent.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(queued, forKey: .queued)
            try container.encode(oldestAgeSeconds, forKey: .oldestAgeSeconds)
        }
    }

    /// The scheduled sync: `{"lastRunAt", "result", "exitStatus", "summary", "failingSince", "nextRunAt"}`.
    package struct Sync: Codable, Sendable, Equatable {
        /// When the last run finished (null before the first).
        package var lastRunAt: Date?
        /// `ok`, `failed` or `skipped` (null before the first run).
        package var result: String?
        /// The last run's exit status.
        package var exitStatus: Int32?
        /// The last run's summary.
        package var summary: String?
        /// The first failed run since the last success.
        package var failingSince: Date?
        /// When the next run is planned.
        package var nextRunAt: Date?

        /// A sync section.
        package init(
            lastRunAt: Date?, result: String?, exitStatus: Int32?, summary: String?, failingSince: Date?, nextRunAt: Date?
        ) {
            self.lastRunAt = lastRunAt
            self.result = result
            self.exitStatus = exitStatus
            self.summary = summary
            self.failingSince = failingSince
            self.nextRunAt = nextRunAt
        }

        private enum CodingKeys: String, CodingKey { case lastRunAt, result, exitStatus, summary, failingSince, nextRunAt }

        /// Writes absent members as null.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lastRunAt, forKey: .lastRunAt)
            try container.encode(result, forKey: .result)
            try container.encode(exitStatus, forKey: .exitStatus)
            try container.encode(summary, forKey: .summary)
            try container.encode(failingSince, forKey: .failingSince)
            try container.encode(nextRunAt, forKey: .nextRunAt)
        }
    }

    /// `{"freeBytes", "minimumFreeBytes"}`.
    package struct Disk: Codable, Sendable, Equatable {
        /// Free bytes in the data folder's file system.
        package var freeBytes: Int64
        /// The health endpoint's minimum.
        package var minimumFreeBytes: Int64

        /// A disk section.
        package init(freeBytes: Int64, minimumFreeBytes: Int64) {
            self.freeBytes = freeBytes
            self.minimumFreeBytes = minimumFreeBytes
        }
    }

    /// `{"residentBytes", "availableBytes"}`.
    package struct Memory: Codable, Sendable, Equatable {
        /// The process's resident size.
        package var residentBytes: Int64
        /// The machine's available memory.
        package var availableBytes: Int64

        /// A memory section.
        package init(residentBytes: Int64, availableBytes: Int64) {
            self.residentBytes = residentBytes
            self.availableBytes = availableBytes
        }
    }

    /// `{"status", "problems"}`.
    package struct Health: Codable, Sendable, Equatable {
        /// `healthy` or `unhealthy`.
        package var status: String
        /// Why it is unhealthy.
        package var problems: [String]

        /// A health section.
        package init(status: String, problems: [String]) {
            self.status = status
            self.problems = problems
        }
    }

    /// `{"presentation", "slide", "source", "until"}`: what the schedule plays now.
    package struct ScheduleNow: Codable, Sendable, Equatable {
        /// The scheduled deck (null: nothing is switched).
        package var presentation: Int?
        /// Its start slide (null: the entry slide).
        package var slide: String?
        /// `weekly`, `exception` or `default`.
        package var source: String
        /// Until when.
        package var until: Date?
        /// False when the scheduled deck is not installed.
        package var installed: Bool?

        /// A schedule section.
        package init(presentation: Int?, slide: String?, source: String, until: Date?, installed: Bool? = nil) {
            self.presentation = presentation
            self.slide = slide
            self.source = source
            self.until = until
            self.installed = installed
        }
    }

    /// `{"attached", "mode", "browserRestarts", "idleResets", "lastInputSecondsAgo"}`.
    package struct KioskStatus: Codable, Sendable, Equatable {
        /// Whether `storybridge kiosk` is attached.
        package var attached: Bool
        /// `kiosk` or `headless`.
        package var mode: String?
        /// Browser restarts since it started.
        package var browserRestarts: Int
        /// Idle resets since it started.
        package var idleResets: Int
        /// Seconds since the last input.
        package var lastInputSecondsAgo: Int?

        /// A kiosk section.
        package init(attached: Bool, mode: String?, browserRestarts: Int, idleResets: Int, lastInputSecondsAgo: Int?) {
            self.attached = attached
            self.mode = mode
            self.browserRestarts = browserRestarts
            self.idleResets = idleResets
            self.lastInputSecondsAgo = lastInputSecondsAgo
        }
    }

    /// `{"entries", "dropped"}`: warnings and errors since the last beat.
    package struct Log: Codable, Sendable, Equatable {
        /// The most entries a beat carries.
        package static let limit = 20
        /// The longest message, in characters.
        static let messageLimit = 300
        /// Oldest first.
        package var entries: [LogEntry]
        /// How many entries were left out.
        package var dropped: Int

        /// A log section.
        package init(entries: [LogEntry] = [], dropped: Int = 0) {
            self.entries = entries
            self.dropped = dropped
        }
    }

    /// `{"at", "level", "message", "count"}`: one message, repeats merged.
    package struct LogEntry: Codable, Sendable, Equatable {
        /// The last time it was logged.
        package var at: Date
        /// `warning`, `error` or `critical`.
        package var level: String
        /// The message, at most 300 characters.
        package var message: String
        /// How many times it was logged since the last beat.
        package var count: Int

        /// An entry.
        package init(at: Date, level: String, message: String, count: Int = 1) {
            self.at = at
            self.level = level
            self.message = message
            self.count = count
        }
    }

    /// `{"since", "seconds", "attempts"}`: how long the hub could not be reached.
    package struct HubUnreachable: Codable, Sendable, Equatable {
        /// The kiosk's wall clock at the first failed attempt.
        package var since: Date
        /// Seconds from then to this beat.
        package var seconds: Int
        /// Connection attempts made meanwhile.
        package var attempts: Int

        /// An outage.
        package init(since: Date, seconds: Int, attempts: Int) {
            self.since = since
            self.seconds = seconds
            self.attempts = attempts
        }
    }
}
