import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// The CRM records in SQLite and their mirror in memory.
@Suite("CRM store")
struct CRMStoreTests {
    @Test("the mirror is used for a second, then the file is looked at again and a changed data set re-imported; saves reach the mirror")
    func mirrorFollowsTheFile() async throws {
        let folder = try scratchFolder("sb-crm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("crm-data.json")
        try Data(#"{"current": {"Account": "A"}, "objects": {"Account": [{"Id": "A", "Name": "first"}]}}"#.utf8).write(to: file)
        var presentation = Presentation(id: 7, name: "deck", root: folder, slides: [], mediaFiles: [])
        presentation.dialect = .veeva
        presentation.crmDataSet = file
        let clock = ManualHostClock()
        let store = CRMStore(database: try temporaryDatabase(), clock: clock)

        func name() async throws -> JSONValue? {
            try await store.prepare(presentation).records(["Account"])?.records.first?["Name"]
        }
        #expect(try await name() == "first")
        #expect(store.memory.fresh(7, now: clock.now) != nil)
        // A different size: the stamp changes.
        try Data(#"{"current": {"Account": "A"}, "objects": {"Account": [{"Id": "A", "Name": "second one"}]}}"#.utf8).write(to: file)
        #expect(try await name() == "first")
        clock.advance(by: .seconds(2))
        #expect(store.memory.fresh(7, now: clock.now) == nil)
        #expect(try await name() == "second one")

        let saved = try await store.save(presentationId: 7, object: "Account", recordId: "A", fields: ["Name": "third"], sessionId: "S")
        #expect(saved.operation == "update")
        #expect(store.memory.fresh(7, now: clock.now)?.records(["account"])?.records.first?["Name"] == "third")
        // Content's update is kept over a re-import of a changed file.
        try Data(#"{"current": {"Account": "A"}, "objects": {"Account": [{"Id": "A", "Name": "fourth, longer"}]}}"#.utf8).write(to: file)
        clock.advance(by: .seconds(2))
        #expect(try await name() == "third")
        #expect(try await store.savedRecords(presentationId: 7).map(\.id) == ["A"])
    }
}
