import Foundation
import GRDB
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// Migration `v20-audit-rowid` (docs/design/TRUST.md 4.2): `auditEntry` made a rowid table, every
/// entry kept byte for byte.
@Suite("audit log: v20-audit-rowid")
struct AuditRowidMigrationTests {
    @Test("a database at v19 with entries keeps every entry byte-identical, verifies clean, and stays append-only")
    func migratesEveryEntry() async throws {
        let v17 = try await DatabaseBeforeTheLog("sb-audit-rowid")
        defer { v17.remove() }
        let (file, old) = (v17.file, v17.queue)
        // v18 writes chain.started and the baseline; v19 adds the checkpoint tables.
        try v17.migrator.migrate(old, upTo: "v19-audit-checkpoints")
        try await old.write { db in
            for index in 1...3 {
                try db.execute(
                    sql: """
                        INSERT INTO customEvent (id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude)
                        VALUES (?, 'old', 1, 'u', ?, 'v', '2026-01-01T00:00:00.000Z', 1.5, 0.5, 0.25)
                        """, arguments: ["e\(index)", "k\(index)"])
                let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM customEvent WHERE id = ?", arguments: ["e\(index)"]))
                var image: [String: DatabaseValue] = [:]
                for (column, value) in row { image[column] = value }
                try AuditLog.append(
                    db, in: nil, kind: AuditKind.customEventSet, deck: AuditDeck(presentationId: 1, presentationRevision: 2),
                    changes: [AuditChange(.insert, table: "customEvent", row: image)], at: Date())
            }
        }
        // Every column's value and storage type (a blob is never equal to text).
        let entriesSQL = "SELECT * FROM auditEntry ORDER BY position"
        let before = try await old.read { db in try Row.fetchAll(db, sql: entriesSQL).map { Array($0.databaseValues) } }
        #expect(before.count == 5)
        let oldSQL = try await old.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'auditEntry'") }
        #expect(oldSQL?.contains("WITHOUT ROWID") == true)
        try old.close()

        let database = try StoryBridgeDatabase(file: file)
        #expect(try database.appliedMigrations().contains("v20-audit-rowid"))
        let (after, sql, triggers) = try await database.read { db in
            (
                try Row.fetchAll(db, sql: entriesSQL).map { Array($0.databaseValues) },
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'auditEntry'"),
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'auditEntry' ORDER BY name")
            )
        }
        #expect(after == before)
        #expect(sql?.contains("position INTEGER PRIMARY KEY") == true && sql?.contains("WITHOUT ROWID") == false, "\(sql ?? "")")
        #expect(triggers == ["auditEntryAppendOnlyDelete", "auditEntryAppendOnlyUpdate"])
        #expect(try AuditVerifier(file: file).verify().findings.isEmpty)
        for statement in ["UPDATE auditEntry SET kind = 'x' WHERE position = 2", "DELETE FROM auditEntry WHERE position = 2"] {
            let error = await #expect(throws: DatabaseError.self) {
                try await database.write { db in try db.execute(sql: statement) }
            }
            #expect(error?.message == "append-only", "\(statement)")
        }
        // New entries follow the migrated ones.
        let store = AnalyticsStore(database: database, clock: ManualHostClock())
        #expect(try await store.deleteCustomEvent(sessionId: "old", key: "k1"))
        let positions = try await database.read { db in try Int.fetchAll(db, sql: "SELECT position FROM auditEntry ORDER BY position") }
        #expect(positions == Array(1...6))
        #expect(try AuditVerifier(file: file).verify().findings.isEmpty)
    }
}
