import Foundation
import GRDB

/// What migration `v18-audit` adds (docs/design/TRUST.md 4.2, named `v16-audit` there; v16 and v17
/// were taken first): the append-only table `auditEntry`, its triggers refusing `UPDATE` and
/// `DELETE`, and the session's deck (`session.manifestHash`, `session.manifestSigned`). The rows
/// the analytics tables already hold are written into the log as `audit.baseline` entries (up to 500
/// rows of one table each) after a `chain.started` entry, so the log accounts for every row from the start and
/// `audit verify` of an upgraded host is clean.
enum AuditSchema {
    /// Rows per `audit.baseline` entry.
    static let baselineRowsPerEntry = 500

    static func create(_ db: Database) throws {
        try db.alter(table: "session") { table in
            table.add(column: "manifestHash", .text)
            table.add(column: "manifestSigned", .integer)
        }
        try db.execute(
            sql: """
                CREATE TABLE auditEntry (
                    segment TEXT NOT NULL, position INTEGER NOT NULL PRIMARY KEY, previousHash BLOB NOT NULL,
                    hash BLOB NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL, presentationId INTEGER,
                    presentationRevision INTEGER, manifestHash TEXT, signed INTEGER, payload BLOB NOT NULL
                ) WITHOUT ROWID;
                CREATE TRIGGER auditEntryAppendOnlyUpdate BEFORE UPDATE ON auditEntry
                    BEGIN SELECT RAISE(ABORT, 'append-only'); END;
                CREATE TRIGGER auditEntryAppendOnlyDelete BEFORE DELETE ON auditEntry
                    BEGIN SELECT RAISE(ABORT, 'append-only'); END;
                """)
        let now = Date()
        // Counted first so `chain.started` can say what follows; the rows are then streamed, a
        // batch at a time, never all held in memory.
        var rows = 0
        var entries = 0
        for table in AuditedTable.all {
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(table.selectInScope))") ?? 0
            rows += count
            entries += (count + baselineRowsPerEntry - 1) / baselineRowsPerEntry
        }
        try AuditLog.append(
            db, in: nil, kind: AuditKind.chainStarted, deck: .none, changes: [], at: now,
            detail: ["migration": "v18-audit", "baselineRows": .int(rows), "baselineEntries": .int(entries)])
        for table in AuditedTable.all {
            let cursor = try Row.fetchCursor(db, sql: table.selectInScope)
            var batch: [AuditChange] = []
            while let row = try cursor.next() {
                var image: [String: DatabaseValue] = [:]
                for (column, value) in row { image[column] = value }
                batch.append(AuditChange(.insert, table: table.name, row: image))
                if batch.count == baselineRowsPerEntry {
                    try AuditLog.append(db, in: nil, kind: AuditKind.baseline, deck: .none, changes: batch, at: now)
                    batch = []
                }
            }
            if !batch.isEmpty { try AuditLog.append(db, in: nil, kind: AuditKind.baseline, deck: .none, changes: batch, at: now) }
        }
    }
}
