import Foundation
import GRDB
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// Checkpoints (docs/design/TRUST.md 4.5) made by the writes themselves, on a real SQLite file.
@Suite("audit checkpoints")
struct AuditCheckpointTests {
    @Test("every N entries the head is signed with the host key, stored, queued for upload and recorded after the head it signs")
    func everyNEntries() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        let key = lab.signingCheckpoints(every: 5)
        try await lab.store.insert(lab.session("s1"))  // position 2 (1 is chain.started)
        for index in 1...9 {
            try await lab.store.upsert(lab.customEvent("e\(index)", session: "s1", key: "k\(index)", value: "\(index)"))
        }
        let entries = try await lab.entries()
        // 3, 4, 5 events; 6 the checkpoint of 5; 7–10 events; 11 the checkpoint of 10; 12, 13 events.
        #expect(entries.map(\.position) == Array(1...13))
        #expect(entries.filter { $0.kind == AuditKind.checkpoint }.map(\.position) == [6, 11])
        let records = try await lab.database.read { db in
            try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence).fetchAll(db)
        }
        #expect(records.map(\.sequence) == [1, 2])
        #expect(records.map(\.position) == [5, 10])
        #expect(records.map(\.hash) == [entries[4].hash, entries[9].hash])
        let second = try AuditCheckpoint.read(try JSONValue.parse(records[1].document))
        #expect(second.signatureValid)
        #expect(second.checkpoint.hostId == key.hostId && second.checkpoint.previousSequence == 1)
        #expect(second.checkpoint.previousPosition == 5 && second.checkpoint.previousHash == entries[4].hash)
        #expect(second.checkpoint.entries == 5)
        let queued = try await lab.store.outbox(status: .queued).filter { $0.eventId == AuditCheckpoint.eventId }
        #expect(queued.map(\.entityId) == ["\(key.hostId):1", "\(key.hostId):2"])
        #expect(queued.map(\.sessionId) == [key.hostId, key.hostId])
        #expect(queued.map(\.body) == records.map(\.document))
        let report = try lab.verify()
        #expect(report.findings.isEmpty, "\(report.findings.map(\.line))")
        #expect(report.checkpoints.local == 2)
    }

    @Test("a checkpoint of nothing new is not made; one signed by another key or edited is named")
    func localCheckpointsChecked() async throws {
        let lab = try AuditLab()
        defer { lab.remove() }
        lab.signingCheckpoints(every: 1_000)
        try await lab.store.insert(lab.session("s1"))
        let database = lab.database
        let made = try await database.write { db in try AuditLog.checkpoint(db, in: database, at: Date()) }
        #expect(made?.sequence == 1 && made?.position == 2)
        let again = try await database.write { db in try AuditLog.checkpoint(db, in: database, at: Date()) }
        #expect(again == nil)
        // Re-signed with another key: its signature no longer verifies under the key it names.
        var forged = try #require(made)
        forged.hash = Data(repeating: 7, count: 32)
        let document = try forged.document(signedBy: HostKey())
        try lab.edit("UPDATE auditCheckpoint SET document = ?, hash = ? WHERE sequence = 1", arguments: [document, forged.hash])
        let report = try lab.verify()
        #expect(report.findings.map(\.kind) == [.badCheckpoint], "\(report.findings.map(\.line))")
    }
}
