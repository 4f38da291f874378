import Foundation
import GRDB
import Testing

@testable import StoryBridge

/// One audit entry per group-commit transaction (docs/design/TRUST.md 4.2, 4.3; issue #44): the
/// writes of a batch each stage a part, and the transaction writes one entry for them all, on a
/// real SQLite file.
@Suite("audit log: one entry per transaction")
struct AuditBatchTests {
    /// `count` custom events of session s1, queued together (one batch, one transaction).
    private func events(_ lab: AuditLab, _ range: ClosedRange<Int>) -> [@Sendable (Database) throws -> Void] {
        range.map { lab.store.upserting(lab.customEvent("e\($0)", session: "s1", key: "k\($0)", value: "\($0)")) }
    }

    @Test(
        "concurrent writes share entries: fewer entries than writes, every write's part present, the log verifies, the rebuild equals the tables"
    )
    func concurrentWritesShareEntries() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        let store = lab.store
        let records = (1...200).map { lab.customEvent("c\($0)", session: "s1", key: "c\($0)", value: "\($0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for record in records { group.addTask { try await store.upsert(record) } }
            try await group.waitForAll()
        }
        // Queued together: certainly one transaction.
        let outcomes = await lab.database.writeEach(events(lab, 1...10))
        #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
        let entries = try await lab.entries()
        let writes = try entries.flatMap { try $0.writes() }
        #expect(entries.count < 2 + 200 + 10, "\(entries.count) entries")
        #expect(writes.filter { $0.kind == AuditKind.customEventSet }.count == 210)
        #expect(writes.map(\.kind).prefix(2) == [AuditKind.chainStarted, AuditKind.sessionStarted])
        let last = try #require(entries.last)
        #expect(last.kind == AuditKind.writes)
        #expect(last.presentationId == nil && last.presentationRevision == nil && last.manifestHash == nil && last.signed == nil)
        let parts = try last.writes()
        #expect(parts.count == 10)
        let deck = AuditDeck(presentationId: 1, presentationRevision: 3, manifestHash: AuditLab.firstHash, signed: true)
        #expect(parts.allSatisfy { $0.kind == AuditKind.customEventSet && $0.deck == deck })
        #expect(parts.map { $0.changes.first?["row"]?["id"]?.stringValue } == (1...10).map { "e\($0)" })
        #expect(entries.map(\.position) == Array(1...entries.count))
        let rebuilt = lab.folder.appendingPathComponent("rebuilt.sqlite")
        let report = try AuditVerifier(file: lab.file).verify(rebuiltFile: rebuilt)
        #expect(report.findings.isEmpty, "\(report.findings.map(\.line))")
        try lab.expectRebuiltEqualsLive(rebuilt)
    }

    @Test("a write that throws in a batch: its part is absent, the others present once each, in one entry")
    func failingWriteDropsItsPart() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        let refused = lab.store.upserting(lab.customEvent("e2", session: "s1", key: "b", value: "2"))
        struct Refused: Error {}
        let outcomes = await lab.database.writeEach([
            lab.store.upserting(lab.customEvent("e1", session: "s1", key: "a", value: "1")),
            { db in
                try refused(db)
                throw Refused()
            },
            lab.store.upserting(lab.customEvent("e3", session: "s1", key: "c", value: "3")),
        ])
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true])
        let entries = try await lab.entries()
        #expect(entries.map(\.kind) == [AuditKind.chainStarted, AuditKind.sessionStarted, AuditKind.writes])
        let parts = try #require(entries.last).writes()
        // e1 ran twice (together, then alone after e2 threw): one part.
        #expect(parts.map { $0.changes.first?["row"]?["id"]?.stringValue } == ["e1", "e3"])
        #expect(try lab.verify().findings.isEmpty)
    }

    @Test("a part edited inside a several-write entry is named at the entry's position, with the row it now rebuilds")
    func tamperedPart() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        _ = await lab.database.writeEach(events(lab, 1...3))
        try await lab.store.insert(lab.slideView("v1", session: "s1"))
        let batch = try #require(try await lab.entries().first { $0.kind == AuditKind.writes }?.position)
        try lab.edit(
            "UPDATE auditEntry SET payload = CAST(replace(CAST(payload AS TEXT), '\"value\":\"2\"', '\"value\":\"9\"') AS BLOB) WHERE position = ?",
            arguments: [batch], droppingTriggers: true)
        let report = try lab.verify()
        #expect(report.findings.map(\.kind) == [.editedEntry, .editedRow], "\(report.findings.map(\.line))")
        #expect(report.findings.map(\.position) == [batch, batch])
        #expect(report.findings[1].key == "id='e2'" && report.findings[1].detail == "value is '2', the log says '9'")
        // A part that names a table the log does not cover: the replay names the write.
        try lab.edit(
            "UPDATE auditEntry SET payload = CAST(replace(CAST(payload AS TEXT), '\"table\":\"customEvent\"}]', '\"table\":\"nothing\"}]') AS BLOB) WHERE position = ?",
            arguments: [batch], droppingTriggers: true)
        let unreplayable = try #require(try lab.verify().findings.first { $0.kind == .unreplayableEntry })
        #expect(unreplayable.position == batch)
        #expect(unreplayable.detail.hasPrefix("its write 1 of 3 (customEvent.set): "), "\(unreplayable.detail)")
    }

    @Test("an entry of several writes is the canonical JSON of the parts' value, made by joining their bytes")
    func canonicalBytes() throws {
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        let first = [
            AuditChange(
                .insert, table: "slideView",
                row: [
                    "id": "v1".databaseValue, "duration": 4.databaseValue, "latitude": 52.520008.databaseValue,
                    "é": "ü\n\"x\"".databaseValue,
                ]),
            AuditChange(.update, table: "session", key: ["id": "s1".databaseValue], row: ["slidesCount": 1.databaseValue]),
        ]
        let second = [
            AuditChange(
                .upsert, table: "customEvent", row: ["id": "e1".databaseValue, "key": "k".databaseValue], conflict: ["key"],
                replacing: ["id"])
        ]
        let third = [AuditChange(.delete, table: "customEvent", key: ["id": "e1".databaseValue])]
        let parts = try [
            AuditPart(
                kind: AuditKind.slideViewed, deck: AuditDeck(presentationId: 1, presentationRevision: 3, manifestHash: "ab", signed: true),
                changes: first, at: at),
            AuditPart(kind: AuditKind.customEventSet, deck: AuditDeck(presentationId: 2, signed: false), changes: second, at: at),
            AuditPart(kind: AuditKind.customEventDeleted, deck: .none, changes: third, at: at),
        ]
        func value(_ part: AuditPart, _ changes: [AuditChange]) -> JSONValue {
            [
                "changes": .array(changes.map(\.json)), "kind": .string(part.kind),
                "manifestHash": part.deck.manifestHash.map(JSONValue.string) ?? .null,
                "presentationId": part.deck.presentationId.map(JSONValue.int) ?? .null,
                "presentationRevision": part.deck.presentationRevision.map(JSONValue.int) ?? .null,
                "signed": part.deck.signed.map { .int($0 ? 1 : 0) } ?? .null,
            ]
        }
        let expected = try CanonicalJSON.encode(
            .object(["writes": .array([value(parts[0], first), value(parts[1], second), value(parts[2], third)])]))
        #expect(AuditPayload.writes(parts) == expected, "\(String(decoding: AuditPayload.writes(parts), as: UTF8.self))")
        // A part alone is the payload of an entry of its own.
        #expect(parts[1].payload == (try CanonicalJSON.encode(["changes": .array(second.map(\.json))])))
    }

    @Test("export gives an entry of several writes as one row of kind writes, its parts in the payload")
    func exportOfSeveralWrites() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        try await lab.store.insert(lab.session("s1"))
        _ = await lab.database.writeEach(events(lab, 1...2))
        var csv = ""
        try AuditExport(file: lab.file).export(from: .position(3), to: nil, format: .csv) { csv += $0 }
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 2)
        let fields = lines[1].split(separator: ",", maxSplits: 9, omittingEmptySubsequences: false)
        #expect(Array(fields[1...7]) == ["3", fields[2], "writes", "", "", "", ""], "\(lines[1])")
        #expect(lines[1].contains(#"{""writes"":[{""changes"":["#), "\(lines[1])")
    }
}
