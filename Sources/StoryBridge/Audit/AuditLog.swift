import Foundation
import GRDB

/// Appends entries to the audit log (docs/design/TRUST.md 4.3). Called inside a store's write
/// closure, after the row writes, so the entry commits with its rows in one transaction and a
/// group-commit savepoint rolled back (a write run twice) drops the entry with them.
///
/// Inside a write of the group commit (``StoryBridgeDatabase/write(_:)``), a store's append only
/// stages its part (``AuditPart``); the transaction writes one entry for the parts of all its
/// writes once they are final (``commit(_:parts:state:afterCommit:)``, the database's
/// before-commit step), so a batch of writes costs one head read, one hash and one `INSERT`. An
/// entry of one part is byte for byte the entry that write would have had alone; an entry of
/// several has kind `writes`, no deck and the payload `{"writes":[…]}`. Entries of the log itself
/// (with `detail`), appends of migrations (`in: nil`) and of writes outside the group commit are
/// written at once, one entry each.
///
/// The cost per entry is one indexed read of the head (the last page of `auditEntry`'s rowid
/// b-tree, in SQLite's page cache; read rather than kept in memory so a rolled-back savepoint or
/// another process's append can never make it wrong), the hash computed in memory, and one cached
/// `INSERT`; on a host that configured its log (``AuditLogState``), one `pwrite` of the head file
/// after the commit, and every ``AuditLogState/Settings/checkpointEvery`` entries a signed
/// checkpoint.
package enum AuditLog {
    /// The head: `segment, position, hash` of the newest entry.
    static let headSQL = "SELECT segment, position, hash FROM auditEntry ORDER BY position DESC LIMIT 1"

    /// Appends an entry of `kind` for `deck` carrying `changes` (and, for entries of the log itself,
    /// `detail`), stamped `at`; inside a write of the group commit, stages it as that write's part of
    /// the transaction's entry instead. `database` is the host database whose ``AuditLogState``
    /// says whether to write the head file and make checkpoints (`nil` in migrations: neither).
    package static func append(
        _ db: Database, in database: StoryBridgeDatabase?, kind: String, deck: AuditDeck, changes: [AuditChange], at: Date,
        detail: JSONValue? = nil
    ) throws {
        let part = try AuditPart(kind: kind, deck: deck, changes: changes, at: at, detail: detail)
        guard let database else {
            try commit(db, parts: [part], state: nil) { _ in }
            return
        }
        if detail == nil, database.stageAuditPart(part) { return }
        try commit(db, parts: [part], state: database.auditLog) { hook in database.afterCommit(db, hook) }
    }

    /// Writes one entry for `parts` (at least one): the part's own entry when there is one, else a
    /// `writes` entry of them all, stamped with the newest part's time. Then, for a host that
    /// configured its log (`state`), the head file's write after the commit and, when the entry's
    /// position calls for one, a checkpoint. `afterCommit` registers what runs after the commit
    /// (inside a write of the group commit: that write's hooks; in the before-commit step: the
    /// transaction's).
    static func commit(
        _ db: Database, parts: [AuditPart], state: AuditLogState?, afterCommit: (@escaping @Sendable () -> Void) -> Void
    ) throws {
        guard let first = parts.first else { return }
        let entry: AuditEntry
        if parts.count == 1 {
            entry = try write(db, kind: first.kind, deck: first.deck, payload: first.payload, at: first.at)
        } else {
            let at = parts.lazy.map(\.at).max() ?? first.at
            entry = try write(db, kind: AuditKind.writes, deck: .none, payload: AuditPayload.writes(parts), at: at)
        }
        guard let state, let settings = state.settings else { return }
        if settings.headFile != nil {
            let head = AuditHead(segment: entry.segment, position: entry.position, hash: entry.hash, checkpointSequence: 0)
            afterCommit { state.committed(head, checkpoint: nil, sync: false) }
        }
        if entry.position % settings.checkpointEvery == 0 {
            try checkpoint(db, state: state, at: parts.lazy.map(\.at).max() ?? first.at, afterCommit: afterCommit)
        }
    }

    /// Writes the entry; returns it. `after` starts a new segment after another database's head
    /// (5.3) instead of following this log's head.
    @discardableResult
    static func write(
        _ db: Database, kind: String, deck: AuditDeck, changes: [AuditChange], at: Date, detail: JSONValue? = nil,
        after start: (segment: String, position: Int, hash: Data)? = nil
    ) throws -> AuditEntry {
        let part = try AuditPart(kind: kind, deck: deck, changes: changes, at: at, detail: detail)
        return try write(db, kind: kind, deck: deck, payload: part.payload, at: at, after: start)
    }

    /// Writes the entry of `kind` for `deck` with the encoded `payload`; returns it.
    private static func write(
        _ db: Database, kind: String, deck: AuditDeck, payload: [UInt8], at: Date,
        after start: (segment: String, position: Int, hash: Data)? = nil
    ) throws -> AuditEntry {
        let head: (segment: String, position: Int, hash: Data)?
        if let start {
            head = start
        } else if let row = try Row.fetchOne(db.cachedStatement(sql: headSQL)) {
            head = (row[0], row[1], row[2])
        } else {
            head = nil
        }
        var entry = AuditEntry(
            segment: head?.segment ?? newSegment(), position: (head?.position ?? 0) + 1,
            previousHash: head?.hash ?? AuditEntry.originHash,
            hash: Data(), at: AnalyticsFormat.timestamp(at), kind: kind, presentationId: deck.presentationId,
            presentationRevision: deck.presentationRevision, manifestHash: deck.manifestHash, signed: deck.signed.map { $0 ? 1 : 0 },
            payload: Data(payload))
        entry.hash = entry.computedHash() ?? Data()
        try db.cachedStatement(
            sql: """
                INSERT INTO auditEntry (segment, position, previousHash, hash, at, kind, presentationId, presentationRevision,
                manifestHash, signed, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.segment, entry.position, entry.previousHash, entry.hash, entry.at, entry.kind, entry.presentationId,
            entry.presentationRevision, entry.manifestHash, entry.signed, entry.payload,
        ])
        return entry
    }

    /// Makes a checkpoint of the head (docs/design/TRUST.md 4.5), inside the caller's write
    /// transaction: the head signed with the host key, stored in `auditCheckpoint`, queued for
    /// upload as `story.content.audit.checkpoint` and recorded as a `checkpoint` entry after the
    /// head it signs. Nothing when the host has no key configured or the head is already
    /// checkpointed. Returns the checkpoint made.
    @discardableResult
    package static func checkpoint(_ db: Database, in database: StoryBridgeDatabase, at: Date) throws -> AuditCheckpoint? {
        try checkpoint(db, state: database.auditLog, at: at) { hook in database.afterCommit(db, hook) }
    }

    /// ``checkpoint(_:in:at:)`` for the log `state`, registering its after-commit work with
    /// `afterCommit`.
    @discardableResult
    static func checkpoint(
        _ db: Database, state: AuditLogState, at: Date, afterCommit: (@escaping @Sendable () -> Void) -> Void
    ) throws -> AuditCheckpoint? {
        guard let settings = state.settings else { return nil }
        guard
            let head = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT segment, position, hash, kind FROM auditEntry ORDER BY position DESC LIMIT 1"))
        else { return nil }
        let last = try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence.desc).fetchOne(db)
        let position: Int = head[1]
        if let last, last.position >= position { return nil }
        // Nothing since the previous checkpoint but its own entry.
        if let last, last.position == position - 1, (head[3] as String?) == AuditKind.checkpoint { return nil }
        // A fresh database after a damaged one continues the numbering the head file carried, after
        // the damaged database's last checkpoint when it could be read; a database restored from an
        // older copy numbers on from the newest number made, so no two checkpoints share one.
        let previous =
            last.map { AuditCheckpointLink(sequence: $0.sequence, position: $0.position, hash: $0.hash) }
            ?? state.inheritedCheckpoint
        let sequence = max(previous?.sequence ?? 0, state.checkpointSequence) + 1
        let checkpoint = AuditCheckpoint(
            hostId: settings.key.hostId, publicKey: settings.key.publicKey, sequence: sequence, segment: head[0],
            position: position, hash: head[2], previousSequence: previous?.sequence ?? 0,
            previousPosition: previous?.position ?? 0, previousHash: previous?.hash ?? AuditEntry.originHash,
            entries: position - (previous?.position ?? 0), at: AnalyticsFormat.timestamp(at))
        let document = try checkpoint.document(signedBy: settings.key)
        try AuditCheckpointRecord(
            sequence: checkpoint.sequence, segment: checkpoint.segment, position: checkpoint.position, hash: checkpoint.hash,
            document: document, at: checkpoint.at
        ).insert(db)
        // Queued whatever the queue's caps: a checkpoint is a few hundred bytes, and one withheld
        // would show as a gap to whoever holds the others.
        try OutboxRecord(
            eventId: AuditCheckpoint.eventId, entityId: "\(checkpoint.hostId):\(checkpoint.sequence)", sessionId: checkpoint.hostId,
            body: document, queuedAt: at
        ).insert(db)
        let entry = try write(
            db, kind: AuditKind.checkpoint, deck: .none, changes: [], at: at,
            detail: [
                "sequence": .int(checkpoint.sequence), "position": .int(checkpoint.position), "hash": .string(checkpoint.hash.auditHex),
            ])
        let entryHead = AuditHead(segment: entry.segment, position: entry.position, hash: entry.hash, checkpointSequence: 0)
        let madeSequence = checkpoint.sequence
        afterCommit { state.committed(entryHead, checkpoint: madeSequence, sync: true) }
        return checkpoint
    }

    /// A new random segment id, 32 hex digits.
    static func newSegment() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).auditHex
    }
}
