import Foundation
import GRDB

/// `storybridge audit verify` (docs/design/TRUST.md 4.4): the log's chain checked, the analytics
/// tables rebuilt from the log alone and compared with the live ones. Reads the database file
/// read-only; never repairs anything (`rebuiltFile` writes the rebuilt tables to a new file for the
/// operator to look at).
package struct AuditVerifier: Sendable {
    /// The database file.
    package let file: URL
    /// Checkpoints held elsewhere (`--checkpoints FILE`: documents exported from the collector).
    package let externalCheckpoints: [JSONValue]
    /// The host whose checkpoints to check (the data folder's host key); `nil`: the host the local
    /// checkpoints name.
    package let hostId: String?

    package init(file: URL, externalCheckpoints: [JSONValue] = [], hostId: String? = nil) {
        self.file = file
        self.externalCheckpoints = externalCheckpoints
        self.hostId = hostId
    }

    /// What a run found.
    package struct Report: Sendable {
        /// Entries read.
        package var entries: Int
        /// Chain segments seen.
        package var segments: Int
        /// Everything wrong, entries first (by position), then rows (by table and key).
        package var findings: [AuditFinding]
        /// The host's own checkpoints, those held elsewhere (of this host), and how many of those
        /// the log matches.
        package var checkpoints: (local: Int, external: Int, matched: Int) = (0, 0, 0)

        /// `{entries, segments, checkpoints: {local, external, matched}, findings}`.
        package var json: JSONValue {
            [
                "entries": .int(entries), "segments": .int(segments),
                "checkpoints": [
                    "local": .int(checkpoints.local), "external": .int(checkpoints.external), "matched": .int(checkpoints.matched),
                ],
                "findings": .array(findings.map(\.json)),
            ]
        }
    }

    /// `file` opened for reading only (`query_only`: a read-only open cannot use a WAL file whose
    /// `-shm` is missing).
    static func openForReading(_ file: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(StoryBridgeDatabase.busyTimeout)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
        return try DatabaseQueue(path: file.path, configuration: configuration)
    }

    /// Verifies the log and the tables; `rebuiltFile`, when given, receives the rebuilt tables (it
    /// must not exist yet).
    package func verify(rebuiltFile: URL? = nil) throws(AuditVerifyError) -> Report {
        guard FileManager.default.fileExists(atPath: file.path) else { throw .noDatabase(file.path) }
        if let rebuiltFile, FileManager.default.fileExists(atPath: rebuiltFile.path) { throw .rebuiltExists(rebuiltFile.path) }
        do {
            let live = try Self.openForReading(file)
            var rebuiltConfiguration = Configuration()
            rebuiltConfiguration.foreignKeysEnabled = false
            let rebuilt =
                try rebuiltFile.map { try DatabaseQueue(path: $0.path, configuration: rebuiltConfiguration) }
                ?? DatabaseQueue(configuration: rebuiltConfiguration)
            try StoryBridgeDatabase.migrator.migrate(rebuilt)
            return try live.read { db throws -> Report in
                guard try db.tableExists(AuditEntry.databaseTableName) else { throw AuditVerifyError.noLog(file.path) }
                var chain = AuditChainCheck()
                var localCheckpoints: [AuditCheckpointRecord] = []
                var gaps: [AuditGapRecord] = []
                if try db.tableExists(AuditCheckpointRecord.databaseTableName) {
                    localCheckpoints = try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence).fetchAll(db)
                    gaps = try AuditGapRecord.filter(AuditGapRecord.CodingKeys.acknowledgedAt == nil)
                        .order(AuditGapRecord.CodingKeys.position).fetchAll(db)
                }
                var checkpoints = AuditCheckpointCheck(local: localCheckpoints, external: externalCheckpoints, hostId: hostId)
                var replayFindings: [AuditFinding] = []
                // A log continuing a damaged database's chain: that one's entries are checked first.
                if let first = try AuditEntry.order(AuditEntry.CodingKeys.position).fetchOne(db),
                    let continuation = AuditDamagedChain.Continuation(first)
                {
                    let fed = AuditDamagedChain.feed(continuation, folder: file.deletingLastPathComponent()) { entry in
                        chain.check(entry)
                        checkpoints.saw(entry)
                    }
                    replayFindings += fed.findings
                    if fed.databases == 0 { chain.start(after: continuation.position, hash: continuation.hash) }
                }
                var replay = try rebuilt.read { try AuditReplay($0) }
                let entries = try AuditEntry.order(AuditEntry.CodingKeys.position).fetchCursor(db)
                try rebuilt.inTransaction { rebuiltDB in
                    while let entry = try entries.next() {
                        chain.check(entry)
                        checkpoints.saw(entry)
                        // The log's own first entries of the rebuilt file are not the live log's.
                        do throws(AuditPayloadError) {
                            try replay.apply(entry, to: rebuiltDB)
                        } catch {
                            replayFindings.append(
                                AuditFinding(kind: .unreplayableEntry, position: entry.position, detail: error.description))
                        }
                    }
                    return .commit
                }
                chain.finish()
                checkpoints.finish()
                let gapFindings = gaps.map { AuditFinding(kind: .chainGap, position: $0.position, detail: $0.reason) }
                let rows = try rebuilt.read { rebuiltDB in try AuditRows.compare(live: db, rebuilt: rebuiltDB, writtenBy: replay.writtenBy)
                }
                var report = Report(
                    entries: chain.entries, segments: chain.segments.count,
                    findings: (chain.findings + replayFindings + checkpoints.findings + gapFindings).sorted {
                        ($0.position ?? 0) < ($1.position ?? 0)
                    } + rows)
                report.checkpoints = (checkpoints.local, checkpoints.external, checkpoints.matched)
                return report
            }
        } catch let error as AuditVerifyError {
            throw error
        } catch {
            throw .storage(file.path, "\(error)")
        }
    }
}

/// Why `audit verify` or `audit export` could not read the log.
package enum AuditVerifyError: Error, Sendable, CustomStringConvertible {
    /// No database file.
    case noDatabase(String)
    /// A database written before the log existed (migration `v18-audit` has not run).
    case noLog(String)
    /// The database could not be read (damaged, truncated, not a database).
    case storage(String, String)
    /// The file for the rebuilt tables exists.
    case rebuiltExists(String)

    package var description: String {
        switch self {
        case .noDatabase(let path): "no database at '\(path)'"
        case .noLog(let path): "'\(path)' has no audit log (written from migration v18-audit on: start the host once with this version)"
        case .storage(let path, let reason): "cannot read '\(path)': \(reason)"
        case .rebuiltExists(let path): "'\(path)' exists; --write-rebuilt writes a new file, never over one"
        }
    }

    /// The exit status: 66 no database or log, 74 storage, 73 (EX_CANTCREAT) the rebuilt file exists.
    package var exitStatus: Int32 {
        switch self {
        case .noDatabase, .noLog: 66
        case .storage: 74
        case .rebuiltExists: 73
        }
    }
}
