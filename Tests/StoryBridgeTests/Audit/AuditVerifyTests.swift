import Foundation
import GRDB
import Testing

@testable import StoryBridge

/// `audit verify` (docs/design/TRUST.md 4.4) against a real SQLite file edited from outside the
/// host: each change is named with its position or its table and key.
@Suite("audit verify")
struct AuditVerifyTests {
    /// A lab with every kind of write recorded, and the position of its first `slide.viewed` entry.
    private func recorded() async throws -> (AuditLab, Int) {
        let lab = try AuditLab()
        try await lab.recordEverything()
        #expect(try lab.verify().findings.isEmpty)
        let slide = try #require(try await lab.entries().first { $0.kind == "slide.viewed" })
        return (lab, slide.position)
    }

    private func kinds(_ report: AuditVerifier.Report) -> [AuditFinding.Kind] { report.findings.map(\.kind) }

    @Test("a row edited in the file is named with its table, key, both values and the entry that wrote it")
    func rowEdited() async throws {
        let (lab, slide) = try await recorded()
        defer { lab.remove() }
        try lab.edit("UPDATE slideView SET duration = 999 WHERE id = 'v1'")
        let report = try lab.verify()
        #expect(kinds(report) == [.editedRow], "\(report.findings.map(\.line))")
        let finding = try #require(report.findings.first)
        #expect(finding.table == "slideView" && finding.key == "id='v1'" && finding.position == slide)
        #expect(finding.detail == "duration is 999, the log says 4")
        #expect(finding.line == "edited row: slideView [id='v1'] (entry \(slide)): duration is 999, the log says 4")
    }

    @Test("a row deleted from the file, and one added to it, are named")
    func rowDeletedAndInserted() async throws {
        let (lab, _) = try await recorded()
        defer { lab.remove() }
        try lab.edit("DELETE FROM mediaView WHERE id = 'm1'")
        try lab.edit(
            """
            INSERT INTO customEvent (id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude)
            VALUES ('forged', 's1', 1, 'user', 'score', '100', '2027-01-15T08:00:00.000Z', 1.5, 0, 0)
            """)
        let report = try lab.verify()
        #expect(kinds(report) == [.deletedRow, .insertedRow], "\(report.findings.map(\.line))")
        #expect(report.findings.map(\.table) == ["mediaView", "customEvent"])
        #expect(report.findings.map(\.key) == ["id='m1'", "id='forged'"])
    }

    @Test("an entry's payload edited (the triggers dropped) is named at its position, and the row it now rebuilds differs")
    func entryEdited() async throws {
        let (lab, slide) = try await recorded()
        defer { lab.remove() }
        try lab.edit(
            "UPDATE auditEntry SET payload = CAST(replace(CAST(payload AS TEXT), '\"duration\":4', '\"duration\":5') AS BLOB) WHERE position = ?",
            arguments: [slide], droppingTriggers: true)
        let report = try lab.verify()
        #expect(kinds(report) == [.editedEntry, .editedRow], "\(report.findings.map(\.line))")
        #expect(report.findings[0].position == slide)
        #expect(report.findings[0].line == "edited entry: position \(slide): its hash does not match its fields")
        #expect(report.findings[1].detail == "duration is 4, the log says 5")
    }

    @Test("an entry deleted is named as the gap it leaves, and the rows it wrote as not written by the log")
    func entryDeleted() async throws {
        let (lab, _) = try await recorded()
        defer { lab.remove() }
        let media = try #require(try await lab.entries().first { $0.kind == "media.viewed" }?.position)
        try lab.edit("DELETE FROM auditEntry WHERE position = ?", arguments: [media], droppingTriggers: true)
        let report = try lab.verify()
        #expect(kinds(report) == [.deletedEntries, .insertedRow], "\(report.findings.map(\.line))")
        #expect(report.findings[0].position == media && report.findings[0].detail == "position \(media) is missing")
        #expect(report.findings[1].table == "mediaView" && report.findings[1].key == "id='m1'")
    }

    @Test("two entries swapped are named as reordered")
    func entriesSwapped() async throws {
        let (lab, slide) = try await recorded()
        defer { lab.remove() }
        try lab.edit(
            """
            UPDATE auditEntry SET position = -1 WHERE position = \(slide);
            UPDATE auditEntry SET position = \(slide) WHERE position = \(slide + 1);
            UPDATE auditEntry SET position = \(slide + 1) WHERE position = -1;
            """, droppingTriggers: true)
        let report = try lab.verify()
        let reordered = report.findings.filter { $0.kind == .reorderedEntry }.compactMap(\.position)
        #expect(reordered.contains(slide) && reordered.contains(slide + 1), "\(report.findings.map(\.line))")
        #expect(!report.findings.contains { $0.kind == .editedEntry }, "\(report.findings.map(\.line))")
    }

    @Test("an entry inserted into the chain (later ones renumbered, its own hash made right) is named at its position")
    func entryInserted() async throws {
        let (lab, slide) = try await recorded()
        defer { lab.remove() }
        let entries = try await lab.entries()
        let before = try #require(entries.first { $0.position == slide })
        var forged = before
        forged.position = slide + 1
        forged.previousHash = before.hash
        forged.kind = "customEvent.set"
        forged.payload = Data(
            #"{"changes":[{"conflict":["sessionId","key"],"op":"upsert","replacing":["value","created"],"row":{"created":"2027-01-15T08:00:00.000Z","id":"forged","key":"score","latitude":"0.0","longitude":"0.0","presentationId":1,"sessionId":"s1","timeZone":"1.5","userId":"user","value":"100"},"table":"customEvent"}]}"#
                .utf8)
        forged.hash = try #require(forged.computedHash())
        try lab.edit(
            "UPDATE auditEntry SET position = position + 1000000 WHERE position > \(slide); UPDATE auditEntry SET position = position - 999999 WHERE position > 1000000",
            droppingTriggers: true)
        try lab.edit(
            """
            INSERT INTO auditEntry (segment, position, previousHash, hash, at, kind, presentationId, presentationRevision, manifestHash,
            signed, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            arguments: [
                forged.segment, forged.position, forged.previousHash, forged.hash, forged.at, forged.kind, forged.presentationId,
                forged.presentationRevision, forged.manifestHash, forged.signed, forged.payload,
            ])
        // The forged row too, so that only the chain tells.
        try lab.edit(
            """
            INSERT INTO customEvent (id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude)
            VALUES ('forged', 's1', 1, 'user', 'score', '100', '2027-01-15T08:00:00.000Z', 1.5, 0, 0)
            """)
        let report = try lab.verify()
        let inserted = report.findings.filter { $0.kind == .insertedEntry }
        #expect(inserted.map(\.position) == [slide + 1], "\(report.findings.map(\.line))")
        // The renumbered entries after it, named once as a range.
        let head = try #require(entries.last?.position) + 1
        let renumbered = report.findings.filter { $0.kind == .reorderedEntry }
        #expect(
            renumbered.map(\.detail)
                == [
                    "positions \(slide + 2)–\(head) were each written one position earlier (renumbered after an entry inserted before them)"
                ],
            "\(report.findings.map(\.line))")
        #expect(!report.findings.contains { $0.table != nil }, "the rows agree with the (forged) log: \(report.findings.map(\.line))")
    }

    @Test("a log cut short (its last entries deleted) leaves rows no entry wrote, each named")
    func logTruncated() async throws {
        let (lab, _) = try await recorded()
        defer { lab.remove() }
        let restored = try #require(try await lab.entries().first { $0.kind == "session.restored" }?.position)
        try lab.edit("DELETE FROM auditEntry WHERE position >= ?", arguments: [restored], droppingTriggers: true)
        let report = try lab.verify()
        #expect(!report.findings.isEmpty)
        #expect(
            report.findings.allSatisfy { $0.table != nil }, "the chain itself is whole up to its new head: \(report.findings.map(\.line))")
        #expect(report.findings.contains { $0.kind == .editedRow && $0.table == "slideView" && $0.key == "id='v2'" })
        #expect(report.findings.contains { $0.kind == .deletedRow && $0.table == "session" && $0.key == "id='s2'" })
        #expect(report.findings.contains { $0.kind == .editedRow && $0.table == "session" && $0.key == "id='s1'" })
    }

    @Test("a database file truncated on disk is a storage failure naming the file")
    func fileTruncated() async throws {
        let folder: URL
        let file: URL
        do {
            let (lab, _) = try await recorded()
            folder = lab.folder
            file = lab.file
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        // The lab's database is released: its last connection closed the write-ahead log into the file.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        #expect(truncate(file.path, off_t(size / 2)) == 0)
        do {
            let report = try AuditVerifier(file: file).verify()
            Issue.record("a truncated file verified: \(report.findings.map(\.line))")
        } catch {
            guard case .storage(let path, _) = error else { throw error }
            #expect(path == file.path && error.exitStatus == 74, "\(error)")
        }
    }

    @Test("--write-rebuilt writes tables equal to an untouched copy's, and refuses an existing file")
    func writeRebuilt() async throws {
        let (lab, _) = try await recorded()
        defer { lab.remove() }
        let rebuilt = lab.folder.appendingPathComponent("rebuilt.sqlite")
        #expect(try AuditVerifier(file: lab.file).verify(rebuiltFile: rebuilt).findings.isEmpty)
        try lab.expectRebuiltEqualsLive(rebuilt)
        do {
            _ = try AuditVerifier(file: lab.file).verify(rebuiltFile: rebuilt)
            Issue.record("an existing file was written over")
        } catch {
            guard case .rebuiltExists = error else { throw error }
        }
    }

    @Test("export gives the entries of a range of positions or times, as CSV and JSON")
    func export() async throws {
        let (lab, _) = try await recorded()
        defer { lab.remove() }
        let entries = try await lab.entries()
        var csv = ""
        let count = try AuditExport(file: lab.file).export(from: .position(2), to: .position(4), format: .csv) { csv += $0 }
        #expect(count == 3)
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first == AuditExport.columns.joined(separator: ","))
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("\(entries[1].segment),2,\(entries[1].at),session.started,1,3,\(AuditLab.firstHash),1,"))
        #expect(
            lines[1].hasSuffix(
                ",\"" + String(decoding: entries[1].payload, as: UTF8.self).replacingOccurrences(of: "\"", with: "\"\"") + "\""))
        let last = try #require(entries.last)
        var json = ""
        let from = try #require(AnalyticsFormat.date(last.at))
        try AuditExport(file: lab.file).export(from: .time(from), to: nil, format: .json) { json += $0 }
        let exported = try #require(try JSONValue.parse(Data(json.utf8)).arrayValue)
        #expect(exported.compactMap { $0["position"]?.intValue } == entries.filter { $0.at >= last.at }.map(\.position))
        #expect(exported.last?["hash"]?.stringValue == last.hash.auditHex)
        #expect(AuditExport.Bound("#0") == nil && AuditExport.Bound("yesterday") == nil)
        #expect(AuditExport.Bound("2026-11-27T10:00:00Z") != nil)
    }
}
