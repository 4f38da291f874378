import Foundation
import GRDB
import Logging

/// The audit log's start-up checks and its clean stop (docs/design/TRUST.md 5.2, 5.3), run by the
/// host before it listens and after it stopped.
///
/// At start: the head file is read (the sound slot with the higher position); the database's head
/// is compared with it; the tail after the last checkpoint is checked (hashes and links, no
/// replay); a fresh database made in place of a damaged one continues the old chain; and what was
/// found is logged and recorded as entries (`chain.gap`, `chain.continued`, `host.started`),
/// never repaired. Then the host's key signs checkpoints and every commit writes the head file.
package enum AuditStart {
    /// What the start-up checks found.
    package struct Report: Sendable {
        /// How the previous run stopped: `clean`, `unclean`, or `unknown` (no head file).
        package var previousStop: String
        /// `ok`, `lagging`, `missing` or `torn`.
        package var headFile: String
        /// Entries the head file was behind the database.
        var lag = 0
        /// What the `chain.gap` entry recorded, if one was.
        package var gap: String?
        /// The damaged database the fresh chain continues, if it does.
        package var continued: String?
    }

    /// Runs the checks on `database` and sets up its log: checkpoints signed with `key` every
    /// `checkpointEvery` entries, the head file at `audit/head` beside the database. `movedAside` is
    /// the damaged database start-up moved away, if it did.
    package static func open(
        _ database: StoryBridgeDatabase, key: HostKey, checkpointEvery: Int, movedAside: MovedAsideDatabase? = nil,
        now: Date = Date(), logger: Logger
    ) async throws -> Report {
        let headFile = try AuditHeadFile(url: AuditHeadFile.url(besideDatabase: database.file))
        let (fileHead, fileState) = headFile.read()
        let every = checkpointEvery
        // The damaged database's last checkpoint, when it can still be read: the next one here names it.
        let inherited = movedAside.flatMap { lastCheckpoint(in: $0.movedTo) }
        let report = try await database.writeSeparately { db -> Report in
            var report = Report(
                previousStop: fileHead.map { $0.cleanStop ? "clean" : "unclean" } ?? "unknown", headFile: fileState.rawValue)
            let lastCheckpoint = try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence.desc).fetchOne(db)
            database.auditLog.configure(
                AuditLogState.Settings(key: key, checkpointEvery: every, headFile: headFile),
                checkpointSequence: max(lastCheckpoint?.sequence ?? 0, fileHead?.checkpointSequence ?? 0),
                inherited: lastCheckpoint == nil ? inherited : nil)
            var problems: [String] = []
            if let movedAside, let fileHead, try onlyMigrationEntries(db) {
                try continueChain(db, from: fileHead, movedAside: movedAside, database: database, at: now)
                report.continued = movedAside.movedTo.lastPathComponent
                logger.warning(
                    "audit: the log continues the chain of the damaged database",
                    metadata: ["damaged": "\(movedAside.movedTo.path)", "fromPosition": "\(fileHead.position)"])
            } else if let fileHead {
                let head = try Row.fetchOne(db, sql: AuditLog.headSQL)
                let databasePosition: Int = head?[1] ?? 0
                if databasePosition < fileHead.position {
                    problems.append(
                        "the database ends at position \(databasePosition) but the head file says position \(fileHead.position) was committed: entries \(databasePosition + 1)–\(fileHead.position) were lost (a database restored from an older copy, or cut short)"
                    )
                } else {
                    let stored = try Row.fetchOne(
                        db, sql: "SELECT segment, hash FROM auditEntry WHERE position = ?", arguments: [fileHead.position])
                    if (stored?[0] as String?) != fileHead.segment || (stored?[1] as Data?) != fileHead.hash {
                        problems.append(
                            "the entry at position \(fileHead.position) is not the one committed there (the head file holds another hash): the log was changed after it was written"
                        )
                    } else if databasePosition > fileHead.position {
                        report.headFile = "lagging"
                        report.lag = databasePosition - fileHead.position
                        logger.notice("audit head file was \(report.lag) entries behind (a power cut, or another process wrote)")
                    }
                }
            } else if fileState == .torn {
                logger.warning("audit head file: neither slot is sound", metadata: ["file": "\(headFile.url.path)"])
            }
            if let problem = try tailProblem(db, after: lastCheckpoint, limit: 2 * max(2, every)) { problems.append(problem) }
            if !problems.isEmpty {
                let reason = problems.joined(separator: "; ")
                let head = try Row.fetchOne(db, sql: AuditLog.headSQL)
                var detail: [String: JSONValue] = ["reason": .string(reason)]
                if let fileHead {
                    detail["fileHead"] = ["position": .int(fileHead.position), "hash": .string(fileHead.hash.auditHex)]
                }
                if let head {
                    detail["databaseHead"] = ["position": .int(head[1]), "hash": .string((head[2] as Data).auditHex)]
                }
                let entry = try AuditLog.write(db, kind: AuditKind.chainGap, deck: .none, changes: [], at: now, detail: .object(detail))
                try AuditGapRecord(position: entry.position, at: entry.at, reason: reason, acknowledgedAt: nil).insert(db)
                report.gap = reason
                logger.error("audit: entries were lost or changed after they were committed", metadata: ["reason": "\(reason)"])
            }
            try AuditLog.append(
                db, in: database, kind: AuditKind.hostStarted, deck: .none, changes: [], at: now,
                detail: ["previousStop": .string(report.previousStop), "headFile": .string(report.headFile)])
            return report
        }
        // Both slots to the head now: a slot left from before (past a recorded gap) is not read again.
        let head = try await database.read { db -> AuditHead? in
            guard let row = try Row.fetchOne(db, sql: AuditLog.headSQL) else { return nil }
            return AuditHead(
                segment: row[0], position: row[1], hash: row[2], checkpointSequence: database.auditLog.checkpointSequence)
        }
        if let head { headFile.reset(to: head) }
        return report
    }

    /// At a clean stop: a checkpoint of the head, and the head file marked clean and synced.
    package static func stop(_ database: StoryBridgeDatabase, now: Date = Date()) async throws {
        guard database.auditLog.settings != nil else { return }
        try await database.writeSeparately { db in _ = try AuditLog.checkpoint(db, in: database, at: now) }
        let head = try await database.read { db -> AuditHead? in
            guard let row = try Row.fetchOne(db, sql: AuditLog.headSQL) else { return nil }
            return AuditHead(segment: row[0], position: row[1], hash: row[2], checkpointSequence: 0, cleanStop: true)
        }
        guard let head else { return }
        database.auditLog.committed(head, checkpoint: nil, sync: true)
    }

    /// The last checkpoint a database moved aside holds, if it can be read.
    private static func lastCheckpoint(in file: URL) -> AuditCheckpointLink? {
        guard let queue = try? AuditVerifier.openForReading(file) else { return nil }
        defer { try? queue.close() }
        return try? queue.read { db -> AuditCheckpointLink? in
            guard try db.tableExists(AuditCheckpointRecord.databaseTableName),
                let last = try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence.desc).fetchOne(db)
            else { return nil }
            return AuditCheckpointLink(sequence: last.sequence, position: last.position, hash: last.hash)
        }
    }

    /// Whether the log holds only what migration `v18-audit` wrote into a database that had no
    /// analytics rows: a database made just now.
    private static func onlyMigrationEntries(_ db: Database) throws -> Bool {
        let kinds = try String.fetchAll(db, sql: "SELECT kind FROM auditEntry ORDER BY position LIMIT 2")
        return kinds == [AuditKind.chainStarted]
    }

    /// Replaces the fresh database's `chain.started` entry (written by its migration a moment ago)
    /// with a `chain.continued` entry at the position after the old head, linked to its hash, in a
    /// new segment (docs/design/TRUST.md 5.3).
    private static func continueChain(
        _ db: Database, from head: AuditHead, movedAside: MovedAsideDatabase, database: StoryBridgeDatabase, at: Date
    ) throws {
        try db.execute(
            sql: """
                DROP TRIGGER auditEntryAppendOnlyDelete;
                DELETE FROM auditEntry;
                CREATE TRIGGER auditEntryAppendOnlyDelete BEFORE DELETE ON auditEntry
                    BEGIN SELECT RAISE(ABORT, 'append-only'); END;
                """)
        try AuditLog.write(
            db, kind: AuditKind.chainContinued, deck: .none, changes: [], at: at,
            detail: [
                "fromDatabase": .string(movedAside.movedTo.lastPathComponent), "fromSegment": .string(head.segment),
                "fromPosition": .int(head.position), "fromHash": .string(head.hash.auditHex), "reason": .string(movedAside.reason),
            ],
            after: (AuditLog.newSegment(), head.position, head.hash))
    }

    /// The tail after the last checkpoint (at most `limit` entries), checked for hashes and links;
    /// what is wrong, in words, or `nil`.
    private static func tailProblem(_ db: Database, after checkpoint: AuditCheckpointRecord?, limit: Int) throws -> String? {
        let newest = try Int.fetchOne(db, sql: "SELECT MAX(position) FROM auditEntry") ?? 0
        let first = max(checkpoint?.position ?? 1, newest - limit, 1)
        let entries = try AuditEntry.filter(AuditEntry.CodingKeys.position >= first).order(AuditEntry.CodingKeys.position).fetchAll(db)
        if let checkpoint, first == checkpoint.position {
            guard let at = entries.first, at.position == checkpoint.position else {
                return "the entry at position \(checkpoint.position), which checkpoint \(checkpoint.sequence) attests, is missing"
            }
            if at.hash != checkpoint.hash {
                return "the entry at position \(checkpoint.position) is not the one checkpoint \(checkpoint.sequence) attests"
            }
        }
        var previous: AuditEntry?
        for entry in entries {
            if entry.computedHash() != entry.hash { return "the entry at position \(entry.position) does not match its hash" }
            if let previous {
                if entry.position != previous.position + 1 {
                    return "positions \(previous.position + 1)–\(entry.position - 1) are missing"
                }
                if entry.previousHash != previous.hash {
                    return "the entry at position \(entry.position) does not follow the one before it"
                }
            }
            previous = entry
        }
        return nil
    }
}
