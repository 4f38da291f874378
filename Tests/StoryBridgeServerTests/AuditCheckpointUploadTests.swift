import Foundation
import GRDB
import StoryBridge
import StoryBridgeTesting
import StoryIoTCollector
import Testing

/// Checkpoints leave the host (docs/design/TRUST.md 4.5): uploaded to the development collector
/// over loopback, printed by `storybridge collector checkpoints`, and held against the log by
/// `storybridge audit verify --checkpoints`.
@Suite("audit checkpoints uploaded")
struct AuditCheckpointUploadTests {
    /// A data folder whose host key signs a checkpoint every 5 entries, with a session and 13
    /// custom events: checkpoints 1, 2 and 3 of positions 5, 10 and 15.
    private func host() async throws -> (DataDirectory, HostKey, AnalyticsStore) {
        let directory = DataDirectory(try scratchFolder("sb-audit-upload"))
        try directory.prepare()
        let key = try HostKey.loadOrCreate(in: directory)
        let database = try StoryBridgeDatabase(file: directory.database)
        database.auditLog.configure(AuditLogState.Settings(key: key, checkpointEvery: 5), checkpointSequence: 0)
        let store = AnalyticsStore(database: database)
        let stamp = RecordStamp(created: Date(), timeZone: 1, latitude: 0, longitude: 0)
        try await store.insert(
            SessionRecord(
                id: "s1", presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0, slidesCount: 0,
                state: .inProgress, complete: false))
        for index in 1...13 {
            try await store.upsert(
                CustomEventRecord(
                    id: "e\(index)", sessionId: "s1", presentationId: 1, userId: "u", key: "k\(index)", value: "v\(index)", stamp: stamp))
        }
        return (directory, key, store)
    }

    /// Uploads what is queued to a collector on 127.0.0.1, then writes `collector checkpoints
    /// --json` (a child process) to a file and returns it.
    private func uploadAndExport(_ store: AnalyticsStore, folder: URL) async throws -> URL {
        let collectorFile = folder.appendingPathComponent("collector.sqlite")
        let (collector, received) = try await makeCollector(store: try CollectorStore(file: collectorFile))
        let upload = uploader(store, port: collector.port)
        _ = await upload.runOnce()
        await upload.shutdown()
        await collector.stop()
        #expect(try received.messages(eventId: AuditCheckpoint.eventId).allSatisfy { $0.headers["s-m-eid"] == AuditCheckpoint.eventId })
        let exported = try await runStorybridge(["collector", "checkpoints", "--json", "--database", collectorFile.path])
        #expect(exported.status == 0, "\(exported.errors)")
        let file = folder.appendingPathComponent("checkpoints.json")
        try Data(exported.output.utf8).write(to: file)
        return file
    }

    @Test("checkpoints every N entries reach the collector as story.content.audit.checkpoint and match the log")
    func uploadedAndMatched() async throws {
        let (directory, key, store) = try await host()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        let file = try await uploadAndExport(store, folder: directory.root)
        let documents = try #require(try JSONValue.parse(Data(contentsOf: file)).arrayValue)
        #expect(documents.compactMap { $0["signed"]?["sequence"]?.intValue } == [1, 2, 3])
        #expect(documents.compactMap { $0["signed"]?["position"]?.intValue } == [5, 10, 15])
        #expect(documents.allSatisfy { $0["signed"]?["hostId"]?.stringValue == key.hostId })
        let listed = try await runStorybridge([
            "collector", "checkpoints", "--host", key.groupedHostId, "--database",
            directory.root.appendingPathComponent("collector.sqlite").path,
        ])
        #expect(listed.output.hasPrefix("3 checkpoints\n"), "\(listed.output)")
        let verified = try await runStorybridge(["audit", "verify", "--checkpoints", file.path, "--data-dir", directory.root.path])
        #expect(verified.status == 0, "\(verified.output) \(verified.errors)")
        #expect(verified.output.hasSuffix("3 checkpoints, 3 of 3 uploaded checkpoints match: ok\n"), "\(verified.output)")
    }

    @Test("a withheld checkpoint shows as a sequence gap; a chain rewritten and re-signed with the host's own key is named")
    func withheldAndRewritten() async throws {
        let (directory, key, store) = try await host()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        // The host withholds checkpoint 2: it never leaves.
        let outside = try DatabaseQueue(path: directory.database.path)
        try await outside.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE entityId = ?", arguments: ["\(key.hostId):2"])
        }
        let file = try await uploadAndExport(store, folder: directory.root)
        let gap = try await runStorybridge(["audit", "verify", "--checkpoints", file.path, "--data-dir", directory.root.path])
        #expect(gap.status == 65)
        let entries = try await entryCount(outside)
        #expect(
            gap.output == "checkpoint gap: position 6: sequence 2 missing (positions 6–10 unattested)\n"
                + "\(entries) entries, 1 segment, 3 checkpoints, 2 of 2 uploaded checkpoints match: 1 finding\n",
            "\(gap.output)")

        // Someone with the data folder and the host key edits a custom event and its entry,
        // rewrites every hash from there on and re-signs the local checkpoints.
        try await rewrite(outside, key: key, position: 4, from: "\"value\":\"v2\"", to: "\"value\":\"v9\"")
        try await outside.write { db in try db.execute(sql: "UPDATE customEvent SET value = 'v9' WHERE id = 'e2'") }
        try outside.close()
        let local = try await runStorybridge(["audit", "verify", "--data-dir", directory.root.path])
        #expect(local.status == 0, "the rewrite is consistent locally: \(local.output)")
        let caught = try await runStorybridge(["audit", "verify", "--checkpoints", file.path, "--data-dir", directory.root.path])
        #expect(caught.status == 65)
        let lines = caught.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines[0].hasPrefix("checkpoint mismatch: position 5: uploaded checkpoint 1 states hash "), "\(lines[0])")
        #expect(lines[0].hasSuffix("(the log was changed after the checkpoint left the host)"))
        #expect(lines[1] == "checkpoint gap: position 6: sequence 2 missing (positions 6–10 unattested)")
        #expect(lines[2].hasPrefix("checkpoint mismatch: position 15: uploaded checkpoint 3 states hash "), "\(lines[2])")
        #expect(lines[3].hasSuffix("0 of 2 uploaded checkpoints match: 3 findings"), "\(lines[3])")
    }

    private func entryCount(_ queue: DatabaseQueue) async throws -> Int {
        try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auditEntry") ?? 0 }
    }

    /// Replaces `from` with `to` in the payload of the entry at `position`, recomputes that entry's
    /// hash and every later one's link and hash, and re-signs the local checkpoints with `key`.
    private func rewrite(_ queue: DatabaseQueue, key: HostKey, position: Int, from: String, to: String) async throws {
        try await queue.write { db in
            try db.execute(sql: "DROP TRIGGER auditEntryAppendOnlyUpdate")
            var entries = try AuditEntry.order(AuditEntry.CodingKeys.position).fetchAll(db)
            for index in entries.indices where entries[index].position >= position {
                if entries[index].position == position {
                    let text = String(decoding: entries[index].payload, as: UTF8.self)
                    entries[index].payload = Data(text.replacingOccurrences(of: from, with: to).utf8)
                } else {
                    entries[index].previousHash = entries[index - 1].hash
                }
                entries[index].hash = try #require(entries[index].computedHash())
                try db.execute(
                    sql: "UPDATE auditEntry SET payload = ?, previousHash = ?, hash = ? WHERE position = ?",
                    arguments: [entries[index].payload, entries[index].previousHash, entries[index].hash, entries[index].position])
            }
            let hashes = Dictionary(uniqueKeysWithValues: entries.map { ($0.position, $0.hash) })
            var previous: AuditCheckpoint?
            for record in try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence).fetchAll(db) {
                var checkpoint = try AuditCheckpoint.read(try JSONValue.parse(record.document)).checkpoint
                checkpoint.hash = try #require(hashes[checkpoint.position])
                if let previous { checkpoint.previousHash = previous.hash }
                try db.execute(
                    sql: "UPDATE auditCheckpoint SET hash = ?, document = ? WHERE sequence = ?",
                    arguments: [checkpoint.hash, try checkpoint.document(signedBy: key), record.sequence])
                previous = checkpoint
            }
        }
    }
}
