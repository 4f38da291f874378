import Foundation
import GRDB

/// Appends entries to the audit log (docs/design/TRUST.md 4.3). Called inside a store's write
/// closure, after the row writes, so the entry commits with its rows in one transaction and a
/// group-commit savepoint rolled back (a write run twice) drops the entry with them.
///
/// The cost per write is one indexed read of the head (the last leaf page of `auditEntry`'s primary
/// key, in SQLite's page cache; read rather than kept in memory so a rolled-back savepoint or another
/// process's append can never make it wrong), the hash computed in memory, and one cached `INSERT`.
package enum AuditLog {
    /// Appends an entry of `kind` for `deck` carrying `changes` (and, for entries of the log itself,
    /// `detail`), stamped `at`.
    package static func append(
        _ db: Database, kind: String, deck: AuditDeck, changes: [AuditChange], at: Date, detail: JSONValue? = nil
    ) throws {
        let payload: [UInt8]
        do {
            payload = try AuditPayload.encode(changes: changes, detail: detail)
        } catch {
            throw AuditPayloadError("the \(kind) entry cannot be written: \(error)")
        }
        let head = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT segment, position, hash FROM auditEntry ORDER BY position DESC LIMIT 1"))
        var entry = AuditEntry(
            segment: head?[0] ?? newSegment(), position: (head?[1] ?? 0) + 1, previousHash: head?[2] ?? AuditEntry.originHash,
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
    }

    /// A new random segment id, 32 hex digits.
    static func newSegment() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).auditHex
    }
}
