import Foundation
import GRDB
import Logging
import ServiceLifecycle
import StoryBridge
import StoryBridgeFleet
import Synchronization

/// Writes the hub's history (docs/design/FLEET.md §5.6): every beat (table `beat`), each kiosk's
/// last beat (`kiosk_state`), per-minute aggregates (`minute`, written once the minute has ended),
/// presence transitions (`kiosk_state` and `state_change`) and the sync runs the beats report
/// (`sync_run`).
///
/// The registry hands each event over with a lock held only to append to memory (no I/O); as a
/// service, the writer stores what has come in **one transaction per second**, and every ten
/// minutes deletes what is older than the ``Retention`` in batches of 5,000 rows, one
/// transaction per batch, so that no write holds the database long. On shutdown it writes what
/// is left, the minute under way included.
///
/// A transaction that fails is logged and its events are dropped (the next second starts
/// afresh): the history is a view of the fleet, not a ledger, and a hub whose disk is full must
/// not grow in memory.
package final class HistoryWriter: Service, Sendable {
    /// How long history is kept.
    package struct Retention: Sendable, Equatable {
        /// Raw beats: 24 hours.
        package var beats: TimeInterval = 24 * 3600
        /// Minutes, state changes and sync runs: 7 days.
        package var others: TimeInterval = 7 * 86_400
        /// Rows deleted per transaction.
        package var batch = 5000
        /// Audit-log checkpoints kept per host: the newest 1,000.
        package var checkpointsPerHost = 1000

        /// The defaults of the design.
        package init() {}
    }

    /// How many rows ``applyRetention(now:)`` deleted, per table.
    package struct Deleted: Sendable, Equatable {
        /// Rows of `beat`.
        package var beats = 0
        /// Rows of `minute`.
        package var minutes = 0
        /// Rows of `state_change`.
        package var stateChanges = 0
        /// Rows of `sync_run`.
        package var syncRuns = 0

        /// Counts of deleted rows.
        package init(beats: Int = 0, minutes: Int = 0, stateChanges: Int = 0, syncRuns: Int = 0) {
            self.beats = beats
            self.minutes = minutes
            self.stateChanges = stateChanges
            self.syncRuns = syncRuns
        }
    }

    /// The database written.
    package let database: HubDatabase
    /// The clock flushes and retention run on.
    let clock: any HostClock
    /// How long history is kept.
    package let retention: Retention
    /// How often events are written.
    let flushPeriod: Duration
    /// How often old rows are deleted.
    let retentionPeriod: Duration
    private let logger: Logger
    /// Where the transactions are timed (`storybridge_fleet_history_write_seconds`), if anywhere.
    private let metrics: FleetMetrics?
    private let pending = Mutex(Pending())

    /// What has come in since the last flush.
    private struct Pending {
        var beats: [(deviceId: String, receivedAt: Int64, json: Data)] = []
        var latest: [String: (json: String, at: Date)] = [:]
        var transitions: [(deviceId: String, transition: KioskPresenceMachine.Transition)] = []
        /// The minute under way, per kiosk.
        var current: [String: MinuteAggregate] = [:]
        /// Minutes that ended, not written yet.
        var ended: [MinuteAggregate] = []
        var syncRuns: [(deviceId: String, sync: Beat.Sync, at: Date)] = []
        var checkpoints: [KioskCheckpoint] = []
        /// The last sync run noted per kiosk (a run is reported by every beat until the next one).
        var lastSyncRun: [String: Date] = [:]

        /// Moves the minute under way of `deviceId` to ``ended`` when `minute` is a later one,
        /// and returns the aggregate for `minute`.
        mutating func aggregate(_ deviceId: String, _ minute: Int64, presence: KioskPresence) -> MinuteAggregate {
            if let open = current[deviceId] {
                if open.minute == minute { return open }
                if open.minute < minute {
                    ended.append(open)
                    current[deviceId] = nil
                } else {
                    // An event dated before the minute under way (a deadline noticed late): its
                    // own row, merged when written.
                    return MinuteAggregate(deviceId: deviceId, minute: minute, presence: presence)
                }
            }
            return MinuteAggregate(deviceId: deviceId, minute: minute, presence: presence)
        }

        mutating func store(_ aggregate: MinuteAggregate) {
            if let open = current[aggregate.deviceId], open.minute > aggregate.minute {
                ended.append(aggregate)
            } else {
                current[aggregate.deviceId] = aggregate
            }
        }
    }

    /// A writer into `database`, on `clock`.
    package init(
        database: HubDatabase, clock: any HostClock, retention: Retention = Retention(), flushPeriod: Duration = .seconds(1),
        retentionPeriod: Duration = .seconds(600), logger: Logger, metrics: FleetMetrics? = nil
    ) {
        self.metrics = metrics
        self.database = database
        self.clock = clock
        self.retention = retention
        self.flushPeriod = flushPeriod
        self.retentionPeriod = retentionPeriod
        self.logger = logger
    }

    // MARK: - Events

    /// A beat of `deviceId` received at `receivedAt` (hub's clock), encoded as `json`.
    package func record(beat: Beat, json: Data, deviceId: String, receivedAt: Date) {
        let text = String(decoding: json, as: UTF8.self)
        let minute = MinuteAggregate.minute(of: receivedAt)
        pending.withLock { pending in
            pending.beats.append((deviceId, Int64((receivedAt.timeIntervalSince1970 * 1000).rounded()), json))
            pending.latest[deviceId] = (text, receivedAt)
            var aggregate = pending.aggregate(deviceId, minute, presence: .online)
            aggregate.add(beat)
            pending.store(aggregate)
            if let sync = beat.sync, let at = sync.lastRunAt, pending.lastSyncRun[deviceId] != at {
                pending.lastSyncRun[deviceId] = at
                pending.syncRuns.append((deviceId, sync, at))
            }
        }
    }

    /// A checkpoint a beat carried, checked (``KioskCheckpoint/checked(_:deviceId:hostId:at:)``).
    package func record(checkpoint: KioskCheckpoint) {
        pending.withLock { $0.checkpoints.append(checkpoint) }
    }

    /// A presence transition of `deviceId`.
    package func record(_ transition: KioskPresenceMachine.Transition, deviceId: String) {
        let minute = MinuteAggregate.minute(of: transition.at)
        pending.withLock { pending in
            pending.transitions.append((deviceId, transition))
            var aggregate = pending.aggregate(deviceId, minute, presence: transition.from)
            aggregate.saw(transition.from)
            aggregate.saw(transition.to)
            pending.store(aggregate)
        }
    }

    // MARK: - Writing

    /// Writes what has come in, in one transaction: beats, last beats, transitions, sync runs, and
    /// the minutes that ended before `now` (with `everything`, the minutes under way too).
    package func flush(now: Date? = nil, everything: Bool = false) async {
        let minuteNow = MinuteAggregate.minute(of: now ?? clock.now)
        let batch = pending.withLock { pending in
            var taken = pending
            taken.current = [:]
            taken.lastSyncRun = [:]
            for (deviceId, open) in pending.current where everything || open.minute < minuteNow {
                taken.ended.append(open)
                pending.current[deviceId] = nil
            }
            pending.beats = []
            pending.latest = [:]
            pending.transitions = []
            pending.ended = []
            pending.syncRuns = []
            pending.checkpoints = []
            return taken
        }
        guard
            !(batch.beats.isEmpty && batch.latest.isEmpty && batch.transitions.isEmpty && batch.ended.isEmpty
                && batch.syncRuns.isEmpty && batch.checkpoints.isEmpty)
        else { return }
        do {
            let start = ContinuousClock.now
            let keep = retention.checkpointsPerHost
            let conflicts = try await database.pool.write { db in try Self.write(batch, keepingCheckpoints: keep, db) }
            metrics?.historyWritten(in: start.duration(to: .now))
            for (received, heldSince) in conflicts {
                logger.error(
                    "fleet: kiosk \(received.deviceId) sent checkpoint \(received.sequence) of its audit log unlike the one the hub has held since \(FleetWire.format(heldSince)): the kiosk's log was rewritten after it was attested; the hub keeps the first",
                    metadata: ["host": "\(HostKey.grouped(received.hostId))", "position": "\(received.position)"])
            }
        } catch {
            logger.error(
                "fleet: cannot write the hub's history; \(batch.beats.count) beats and \(batch.transitions.count) state changes are lost",
                metadata: ["error": "\(error)"])
        }
    }

    /// Writes `batch`; returns the checkpoints that differ from one of the same host and sequence
    /// already held (with when that one arrived): those are not written.
    private static func write(
        _ batch: Pending, keepingCheckpoints keep: Int, _ db: Database
    ) throws -> [(KioskCheckpoint, heldSince: Date)] {
        for beat in batch.beats {
            try db.execute(
                sql: "INSERT INTO beat (deviceId, receivedAt, json) VALUES (?, ?, ?)",
                arguments: [beat.deviceId, beat.receivedAt, beat.json])
        }
        for (deviceId, latest) in batch.latest {
            try db.execute(
                sql: "UPDATE kiosk_state SET lastBeat = ?, lastBeatAt = ? WHERE deviceId = ?",
                arguments: [latest.json, latest.at, deviceId])
        }
        for (deviceId, transition) in batch.transitions {
            try db.execute(
                sql: "UPDATE kiosk_state SET presence = ?, since = ? WHERE deviceId = ?",
                arguments: [transition.to.rawValue, transition.at, deviceId])
            try db.execute(
                sql: "INSERT INTO state_change (deviceId, at, \"from\", \"to\", reason) VALUES (?, ?, ?, ?, ?)",
                arguments: [deviceId, transition.at, transition.from.rawValue, transition.to.rawValue, transition.reason])
        }
        for minute in batch.ended {
            try upsert(minute, db)
        }
        for run in batch.syncRuns {
            try db.execute(
                sql: "INSERT OR IGNORE INTO sync_run (deviceId, at, result, exitStatus, summary) VALUES (?, ?, ?, ?, ?)",
                arguments: [run.deviceId, run.at, run.sync.result, run.sync.exitStatus.map { Int($0) }, run.sync.summary])
        }
        return try write(batch.checkpoints, keeping: keep, db)
    }

    /// Writes `checkpoints` not held yet and keeps the newest `keep` of each host; returns those
    /// unlike the one held for their host and sequence.
    private static func write(
        _ checkpoints: [KioskCheckpoint], keeping keep: Int, _ db: Database
    ) throws -> [(KioskCheckpoint, heldSince: Date)] {
        var conflicts: [(KioskCheckpoint, heldSince: Date)] = []
        for checkpoint in checkpoints {
            if let held = try Row.fetchOne(
                db, sql: "SELECT document, receivedAt FROM kiosk_checkpoint WHERE hostId = ? AND sequence = ?",
                arguments: [checkpoint.hostId, checkpoint.sequence])
            {
                if (held["document"] as String) != checkpoint.document { conflicts.append((checkpoint, held["receivedAt"])) }
                continue
            }
            try db.execute(
                sql: """
                    INSERT INTO kiosk_checkpoint (hostId, sequence, deviceId, position, hash, document, receivedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    checkpoint.hostId, checkpoint.sequence, checkpoint.deviceId, checkpoint.position, checkpoint.hash,
                    checkpoint.document, checkpoint.receivedAt,
                ])
            try db.execute(
                sql: """
                    DELETE FROM kiosk_checkpoint WHERE hostId = ? AND sequence <= (
                        SELECT sequence FROM kiosk_checkpoint WHERE hostId = ? ORDER BY sequence DESC LIMIT 1 OFFSET ?)
                    """,
                arguments: [checkpoint.hostId, checkpoint.hostId, keep])
        }
        return conflicts
    }

    /// Writes `minute`, merging it into a row of the same kiosk and minute.
    private static func upsert(_ minute: MinuteAggregate, _ db: Database) throws {
        var merged = minute
        if let row = try Row.fetchOne(
            db, sql: "SELECT * FROM minute WHERE deviceId = ? AND minute = ?", arguments: [minute.deviceId, minute.minute])
        {
            var stored = MinuteAggregate(
                deviceId: minute.deviceId, minute: minute.minute, presence: KioskPresence(rawValue: row["presence"]) ?? .new)
            stored.beats = row["beats"]
            stored.queueMax = row["queueMax"]
            stored.oldestAgeMax = row["oldestAgeMax"]
            stored.viewersMax = row["viewersMax"]
            stored.freeDiskMin = row["freeDiskMin"]
            stored.residentMax = row["residentMax"]
            merged.merge(stored)
        }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO minute (deviceId, minute, beats, queueMax, oldestAgeMax, viewersMax, freeDiskMin, residentMax, presence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                merged.deviceId, merged.minute, merged.beats, merged.queueMax, merged.oldestAgeMax, merged.viewersMax, merged.freeDiskMin,
                merged.residentMax, merged.presence.rawValue,
            ])
    }

    // MARK: - Retention

    /// Deletes beats older than 24 hours and minutes, state changes and sync runs older than 7
    /// days at `now`, in batches of ``Retention/batch`` rows (a transaction each).
    @discardableResult
    package func applyRetention(now: Date? = nil) async -> Deleted {
        let now = now ?? clock.now
        let beatsBefore = Int64(((now.timeIntervalSince1970 - retention.beats) * 1000).rounded(.down))
        let othersBefore = now.addingTimeInterval(-retention.others)
        var deleted = Deleted()
        deleted.beats = await deleteInBatches("beat", "receivedAt", beatsBefore)
        deleted.minutes = await deleteInBatches("minute", "minute", MinuteAggregate.minute(of: othersBefore))
        deleted.stateChanges = await deleteInBatches("state_change", "at", othersBefore)
        deleted.syncRuns = await deleteInBatches("sync_run", "at", othersBefore)
        return deleted
    }

    private func deleteInBatches(_ table: String, _ column: String, _ before: some DatabaseValueConvertible & Sendable) async -> Int {
        var total = 0
        let limit = retention.batch
        while true {
            do {
                let count = try await database.pool.write { db in
                    try db.execute(
                        sql: "DELETE FROM \(table) WHERE rowid IN (SELECT rowid FROM \(table) WHERE \(column) < ? LIMIT ?)",
                        arguments: [before, limit])
                    return db.changesCount
                }
                total += count
                if count < limit { return total }
            } catch {
                logger.error("fleet: cannot delete old rows of \(table)", metadata: ["error": "\(error)"])
                return total
            }
        }
    }

    // MARK: - Service

    /// Flushes every ``flushPeriod`` and applies the retention every ``retentionPeriod`` (and once
    /// at start) until the service group shuts down; then writes what is left.
    package func run() async throws {
        await applyRetention()
        await cancelWhenGracefulShutdown { await self.tick() }
        // A cancelled task's database access fails at once: the last write runs in a task of its own.
        await Task { await self.flush(everything: true) }.value
    }

    private func tick() async {
        var sinceRetention = Duration.zero
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: flushPeriod)
            } catch {
                return
            }
            await flush()
            sinceRetention += flushPeriod
            if sinceRetention >= retentionPeriod {
                sinceRetention = .zero
                await applyRetention()
            }
        }
    }
}
