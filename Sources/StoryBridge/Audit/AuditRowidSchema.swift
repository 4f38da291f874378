import GRDB

/// Migration `v20-audit-rowid` (docs/design/TRUST.md 4.2): `auditEntry` becomes a rowid table,
/// `position INTEGER PRIMARY KEY` (an alias of the rowid) instead of a `WITHOUT ROWID` table keyed
/// by position. Entries are 500 to 900 bytes, and SQLite advises `WITHOUT ROWID` only for rows
/// smaller than about a twentieth of a page; appending at the end of the rowid is cheaper per
/// `INSERT` (docs/BENCHMARKS.md, "The audit log's cost on writes": about a quarter less time per
/// entry in a check of the same pattern), paid once per transaction (issue #44's budget).
///
/// The table is made anew and every entry copied as it is (the same bytes in every column, so every
/// hash still verifies); the copy is checked complete, column by column, before the old table is
/// dropped, and the two append-only triggers are made again on the new one (dropping a table drops
/// its triggers without firing them).
enum AuditRowidSchema {
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE auditEntryRowid (
                    segment TEXT NOT NULL, position INTEGER PRIMARY KEY, previousHash BLOB NOT NULL,
                    hash BLOB NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL, presentationId INTEGER,
                    presentationRevision INTEGER, manifestHash TEXT, signed INTEGER, payload BLOB NOT NULL
                );
                INSERT INTO auditEntryRowid (segment, position, previousHash, hash, at, kind, presentationId,
                    presentationRevision, manifestHash, signed, payload)
                SELECT segment, position, previousHash, hash, at, kind, presentationId, presentationRevision,
                    manifestHash, signed, payload FROM auditEntry ORDER BY position;
                """)
        let entries = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auditEntry") ?? 0
        let copied = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auditEntryRowid") ?? 0
        // Every column compared with IS (NULL equal to NULL) and, for text and blobs, by type too.
        let same =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM auditEntry AS old JOIN auditEntryRowid AS new ON new.position = old.position
                    WHERE new.segment IS old.segment AND new.previousHash IS old.previousHash AND new.hash IS old.hash
                    AND new.at IS old.at AND new.kind IS old.kind AND new.presentationId IS old.presentationId
                    AND new.presentationRevision IS old.presentationRevision AND new.manifestHash IS old.manifestHash
                    AND new.signed IS old.signed AND new.payload IS old.payload AND typeof(new.payload) = typeof(old.payload)
                    AND typeof(new.hash) = typeof(old.hash) AND typeof(new.previousHash) = typeof(old.previousHash)
                    """) ?? 0
        guard copied == entries, same == entries else {
            throw DatabaseError(
                resultCode: .SQLITE_ERROR,
                message: "v20-audit-rowid: copied \(copied) of \(entries) audit entries, \(same) identical; the log is left as it was")
        }
        try db.execute(
            sql: """
                DROP TABLE auditEntry;
                ALTER TABLE auditEntryRowid RENAME TO auditEntry;
                CREATE TRIGGER auditEntryAppendOnlyUpdate BEFORE UPDATE ON auditEntry
                    BEGIN SELECT RAISE(ABORT, 'append-only'); END;
                CREATE TRIGGER auditEntryAppendOnlyDelete BEFORE DELETE ON auditEntry
                    BEGIN SELECT RAISE(ABORT, 'append-only'); END;
                """)
    }
}
