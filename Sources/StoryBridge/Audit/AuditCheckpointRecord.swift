import Foundation
import GRDB

/// A checkpoint the host made (table `auditCheckpoint`, migration `v19-audit-checkpoints`): its
/// sequence, the head it signs and the signed document as uploaded.
package struct AuditCheckpointRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "auditCheckpoint"

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case sequence, segment, position, hash, document, at
    }

    package var sequence: Int
    package var segment: String
    package var position: Int
    package var hash: Data
    /// The signed document (canonical JSON text), as queued for upload.
    package var document: String
    package var at: String
}

/// A start-up check of the log found entries lost or changed (table `auditGap`, migration
/// `v19-audit-checkpoints`; docs/design/TRUST.md 5.2): listed by health until acknowledged.
package struct AuditGapRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "auditGap"

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case position, at, reason, acknowledgedAt
    }

    /// The position of the `chain.gap` entry that records it.
    package var position: Int
    package var at: String
    /// What was found, in words.
    package var reason: String
    /// When `audit verify --acknowledge` took note of it.
    var acknowledgedAt: String?
}

/// Migration `v19-audit-checkpoints`: the checkpoints the host made (4.5) and the gaps its start
/// checks found (5.2).
enum AuditCheckpointSchema {
    static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE auditCheckpoint (
                    sequence INTEGER NOT NULL PRIMARY KEY, segment TEXT NOT NULL, position INTEGER NOT NULL,
                    hash BLOB NOT NULL, document TEXT NOT NULL, at TEXT NOT NULL);
                CREATE TABLE auditGap (
                    position INTEGER NOT NULL PRIMARY KEY, at TEXT NOT NULL, reason TEXT NOT NULL, acknowledgedAt TEXT);
                """)
    }
}

extension AuditGapRecord {
    /// The gaps the start-up checks recorded that `audit verify --acknowledge` has not taken note
    /// of, oldest first (none before migration `v19-audit-checkpoints`).
    package static func open(in database: StoryBridgeDatabase) async throws -> [AuditGapRecord] {
        try await database.read { db in
            guard try db.tableExists(databaseTableName) else { return [] }
            return try AuditGapRecord.filter(CodingKeys.acknowledgedAt == nil).order(CodingKeys.position).fetchAll(db)
        }
    }
}

extension AuditGapRecord {
    /// Takes note of every open gap (`audit verify --acknowledge`): each is marked acknowledged and
    /// one `chain.acknowledged` entry names their positions. Returns those positions (none: nothing
    /// is written).
    package static func acknowledge(in database: StoryBridgeDatabase, at: Date) async throws -> [Int] {
        try await database.writeSeparately { db -> [Int] in
            guard try db.tableExists(databaseTableName) else { return [] }
            let open = try AuditGapRecord.filter(CodingKeys.acknowledgedAt == nil).order(CodingKeys.position).fetchAll(db)
            guard !open.isEmpty else { return [] }
            let when = AnalyticsFormat.timestamp(at)
            try db.execute(sql: "UPDATE auditGap SET acknowledgedAt = ? WHERE acknowledgedAt IS NULL", arguments: [when])
            let positions = open.map(\.position)
            try AuditLog.append(
                db, in: database, kind: AuditKind.chainAcknowledged, deck: .none, changes: [], at: at,
                detail: ["positions": .array(positions.map(JSONValue.int))])
            return positions
        }
    }
}
