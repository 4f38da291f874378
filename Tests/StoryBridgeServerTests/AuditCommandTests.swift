import Foundation
import GRDB
import StoryBridge
import StoryBridgeTesting
import Testing

/// `storybridge audit verify` and `audit export` as child processes on a data folder a host wrote.
@Suite("storybridge audit")
struct AuditCommandTests {
    /// A data folder whose database holds a session with a slide view and a custom event.
    private func recordedFolder() async throws -> URL {
        let folder = try scratchFolder("sb-audit-cli")
        let directory = DataDirectory(folder)
        try directory.prepare()
        let database = try StoryBridgeDatabase(file: directory.database)
        let clock = ManualHostClock()
        let store = AnalyticsStore(database: database, clock: clock)
        let stamp = RecordStamp(created: clock.now, timeZone: 1, latitude: 0.5, longitude: 0.25)
        try await store.insert(
            SessionRecord(
                id: "s1", presentationId: 7, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0, slidesCount: 0,
                state: .inProgress, complete: false, presentationRevision: 2))
        try await store.insert(
            SlideViewRecord(
                id: "v1", sessionId: "s1", presentationId: 7, slideName: "a.html", userId: "u", duration: 6, navigation: "in",
                cause: "page", stamp: stamp))
        try await store.upsert(
            CustomEventRecord(id: "e1", sessionId: "s1", presentationId: 7, userId: "u", key: "k", value: "v", stamp: stamp))
        return folder
    }

    @Test("verify: a clean host exits 0; a row edited in the file is named, exit 65, also in --json; no database exits 66")
    func verify() async throws {
        let folder = try await recordedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clean = try await runStorybridge(["audit", "verify", "--data-dir", folder.path])
        #expect(clean.status == 0, "\(clean.output) \(clean.errors)")
        #expect(clean.output == "4 entries, 1 segment: ok\n")

        let outside = try DatabaseQueue(path: DataDirectory(folder).database.path)
        try await outside.write { db in try db.execute(sql: "UPDATE slideView SET duration = 60 WHERE id = 'v1'") }
        try outside.close()
        let found = try await runStorybridge(["audit", "verify", "--data-dir", folder.path])
        #expect(found.status == 65)
        #expect(
            found.output == "edited row: slideView [id='v1'] (entry 3): duration is 60, the log says 6\n4 entries, 1 segment: 1 finding\n")
        let asJSON = try await runStorybridge(["audit", "verify", "--json", "--data-dir", folder.path])
        #expect(asJSON.status == 65)
        let report = try JSONValue.parse(Data(asJSON.output.utf8))
        #expect(report["entries"] == 4 && report["segments"] == 1)
        #expect(
            report["findings"]
                == [
                    [
                        "kind": "edited row", "position": 3, "table": "slideView", "key": "id='v1'",
                        "detail": "duration is 60, the log says 6",
                    ]
                ])

        let missing = try await runStorybridge(["audit", "verify", "--data-dir", folder.appendingPathComponent("none").path])
        #expect(missing.status == 66 && missing.errors.contains("no database at"), "\(missing.errors)")
    }

    @Test("export: CSV and JSON of a range by position and by time; a bad range exits 64; --help explains")
    func export() async throws {
        let folder = try await recordedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = try await runStorybridge(["audit", "export", "--from", "#2", "--to", "#3", "--format", "csv", "--data-dir", folder.path])
        #expect(csv.status == 0, "\(csv.errors)")
        let lines = csv.output.components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[3].isEmpty, "\(lines)")
        #expect(lines[0] == "segment,position,at,kind,presentationId,presentationRevision,manifestHash,signed,previousHash,hash,payload")
        #expect(lines[1].contains(",2,") && lines[1].contains(",session.started,7,2,,,"), "\(lines[1])")
        #expect(lines[2].contains(",3,") && lines[2].contains(",slide.viewed,7,2,,,"), "\(lines[2])")

        let json = try await runStorybridge([
            "audit", "export", "--from", "2020-01-01T00:00:00Z", "--format", "json", "--data-dir", folder.path,
        ])
        #expect(json.status == 0, "\(json.errors)")
        let entries = try #require(try JSONValue.parse(Data(json.output.utf8)).arrayValue)
        #expect(entries.compactMap { $0["kind"]?.stringValue } == ["chain.started", "session.started", "slide.viewed", "customEvent.set"])
        #expect(entries.compactMap { $0["position"]?.intValue } == [1, 2, 3, 4])

        let backwards = try await runStorybridge(["audit", "export", "--from", "#3", "--to", "#2", "--data-dir", folder.path])
        #expect(backwards.status == 64 && backwards.errors.contains("comes after"), "\(backwards.errors)")
        let unreadable = try await runStorybridge(["audit", "export", "--from", "yesterday", "--data-dir", folder.path])
        #expect(unreadable.status == 64 && unreadable.errors.contains("neither an ISO 8601 time nor #POSITION"), "\(unreadable.errors)")

        let help = try await runStorybridge(["audit", "verify", "--help"])
        #expect(help.output.contains("edited entry") && help.output.contains("Exit status: 0 clean; 65 findings"), "\(help.output)")
    }
}
