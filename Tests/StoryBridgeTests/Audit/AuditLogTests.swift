import Foundation
import GRDB
import Testing

@testable import StoryBridge

/// The audit log (docs/design/TRUST.md 4.1–4.3): every analytics write appends its entry (its part
/// of its transaction's entry) in the same transaction, naming the deck on screen; the log is
/// append-only. Writes awaited one by one each have an entry of their own.
@Suite("audit log")
struct AuditLogTests {
    @Test("every analytics write appends one entry of its kind, chained to the one before; a clean host verifies")
    func everyWriteAppends() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.recordEverything()
        let entries = try await lab.entries()
        #expect(entries.allSatisfy { $0.kind != AuditKind.writes }, "writes awaited one by one: one entry each")
        #expect(
            try entries.flatMap { try $0.writes() }.map(\.kind) == [
                "chain.started", "session.started", "slide.viewed", "media.viewed", "customEvent.set", "customEvent.set", "customEvent.set",
                "customEvent.deleted", "deepLink.recorded", "session.complete", "crm.saved", "crm.saved", "oce.state", "session.state",
                "session.started", "slide.viewed", "customEvent.set", "session.restored", "session.state",
            ])
        #expect(entries.map(\.position) == Array(1...entries.count))
        for (previous, entry) in zip(entries, entries.dropFirst()) {
            #expect(entry.previousHash == previous.hash && entry.segment == previous.segment)
            #expect(entry.computedHash() == entry.hash)
        }
        #expect(entries.first?.previousHash == AuditEntry.originHash)
        let slide = try #require(entries.first { $0.kind == "slide.viewed" })
        let payload = String(decoding: slide.payload, as: UTF8.self)
        #expect(payload.contains(#""op":"insert","row":{"#) && payload.contains(#""table":"slideView""#), "\(payload)")
        #expect(payload.contains(#""latitude":"52.520008""#), "a real is written as its exact text: \(payload)")
        #expect(
            payload.contains(#""op":"update","row":{"#) && payload.contains(#""slidesCount":1"#), "the session's recount travels with it")
        let report = try lab.verify()
        #expect(report.findings.isEmpty, "\(report.findings.map(\.line))")
        #expect(report.entries == entries.count && report.segments == 1)
    }

    @Test("entries name the manifest hash and revision of the deck on screen, also after a swap mid-session")
    func entriesNameTheDeckShown() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        // A sync swaps in revision 4 while s1 is shown.
        try lab.serve(folder: "p1-r4", revision: 4, manifestHash: AuditLab.secondHash)
        try await lab.store.insert(lab.slideView("v1", session: "s1"))
        try await lab.store.insert(lab.session("s2", revision: 4))
        try await lab.store.upsert(lab.customEvent("e1", session: "s2", key: "k", value: "v"))
        let entries = try await lab.entries().filter { $0.kind != "chain.started" }
        #expect(entries.map(\.manifestHash) == [AuditLab.firstHash, AuditLab.firstHash, AuditLab.secondHash, AuditLab.secondHash])
        let writes = try entries.flatMap { try $0.writes() }
        #expect(writes.map(\.kind) == ["session.started", "slide.viewed", "session.started", "customEvent.set"])
        #expect(writes.map(\.deck.manifestHash) == [AuditLab.firstHash, AuditLab.firstHash, AuditLab.secondHash, AuditLab.secondHash])
        #expect(writes.map(\.deck.presentationRevision) == [3, 3, 4, 4])
        #expect(writes.allSatisfy { $0.deck.presentationId == 1 && $0.deck.signed == true })
        let stored = try #require(try await lab.store.session(id: "s1"))
        #expect(stored.manifestHash == AuditLab.firstHash && stored.manifestSigned == true)
        // A deck with no manifest record (a folder served from disk): no hash, signed unknown.
        try lab.edit("DELETE FROM packageTrust")
        try await lab.store.insert(lab.session("s3", revision: 4))
        let last = try #require(try await lab.entries().last)
        #expect(last.manifestHash == nil && last.signed == nil && last.presentationRevision == 4)
    }

    @Test("the log is append-only: the host's own connection cannot update or delete an entry")
    func appendOnly() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        for sql in ["UPDATE auditEntry SET kind = 'x' WHERE position = 2", "DELETE FROM auditEntry WHERE position = 2"] {
            let error = await #expect(throws: DatabaseError.self) {
                try await lab.database.write { db in try db.execute(sql: sql) }
            }
            #expect(error?.message == "append-only", "\(sql)")
        }
        #expect(try await lab.entries().count == 2)
    }

    @Test("a write that fails appends nothing; a write undone with its group-commit savepoint takes its entry with it")
    func failedWriteAppendsNothing() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        await #expect(throws: (any Error).self) { try await lab.store.insert(lab.session("s1")) }
        let second = lab.store.upserting(lab.customEvent("e2", session: "s1", key: "b", value: "2"))
        let outcomes = await lab.database.writeEach([
            lab.store.upserting(lab.customEvent("e1", session: "s1", key: "a", value: "1")),
            { db in
                try second(db)
                struct Refused: Error {}
                throw Refused()
            },
            lab.store.upserting(lab.customEvent("e3", session: "s1", key: "c", value: "3")),
        ])
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true])
        // The batch's two surviving writes share one entry.
        let entries = try await lab.entries()
        #expect(entries.map(\.kind) == ["chain.started", "session.started", "writes"])
        #expect(
            try entries.flatMap { try $0.writes() }.map(\.kind) == [
                "chain.started", "session.started", "customEvent.set", "customEvent.set",
            ])
        #expect(try lab.verify().findings.isEmpty)
    }

    @Test("rows written before the log began are recorded as its baseline, so an upgraded host verifies")
    func baselineOfAnUpgradedHost() async throws {
        // A database of the version before: migrated up to v17, with records.
        let v17 = try await DatabaseBeforeTheLog("sb-audit-old")
        defer { v17.remove() }
        let (file, old) = (v17.file, v17.queue)
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO slideView (id, sessionId, presentationId, slideName, userId, duration, navigation, cause, created,
                        timeZone, latitude, longitude)
                    VALUES ('ov', 'old', 1, 'a.html', 'u', 3, 'in', 'page', '2026-01-01T00:00:00.000Z', 1.0, 0.5, 0.25);
                    """)
        }
        try old.close()
        let database = try StoryBridgeDatabase(file: file)
        let entries = try await database.read { db in try AuditEntry.order(AuditEntry.CodingKeys.position).fetchAll(db) }
        // One baseline entry per table (up to 500 rows each): the session, then its slide view.
        #expect(entries.map(\.kind) == ["chain.started", "audit.baseline", "audit.baseline"])
        let started = String(decoding: entries[0].payload, as: UTF8.self)
        #expect(started.contains(#""baselineEntries":2"#) && started.contains(#""baselineRows":2"#), "\(started)")
        #expect(try AuditVerifier(file: file).verify().findings.isEmpty)
    }
}
