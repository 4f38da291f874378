import Foundation
import GRDB
import StoryBridge
import StoryBridgeTesting
import Testing

/// Rows damaged behind the host's back (by hand, another tool, a disk) are errors that name them,
/// never silently missing or read as defaults; a query that cannot run is the content's fault (400).
@Suite("Corrupt records and invalid queries")
struct CorruptRecordTests {
    @Test("a table entry whose JSON no longer parses fails every query that meets it with a 500 naming its id")
    func corruptTableEntry() async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder], tables: [TableDefinition(id: 3, name: "People", schema: [.init(k: "Name", t: 1)])])
        let viewer = try await host.connectViewer()
        let inserted = try await viewer.request(
            "insertEntries", data: ["tableId": 3, "entries": [["Name": "Vera"], ["Name": "Anna"]]])
        let ids = try #require(inserted.data.arrayValue?.compactMap { $0["_id"]?.stringValue })
        #expect(ids.count == 2)
        let broken = ids[1]
        try await host.runtime.database.pool.write { db in
            try db.execute(sql: "UPDATE tableEntry SET body = '{\"Name\": \"An' WHERE id = ?", arguments: [broken])
        }

        for (command, data) in [
            ("findByQuery", ["tableId": 3, "query": "", "skip": 0, "take": 100] as JSONValue),
            ("countByQuery", ["tableId": 3, "query": #"[Name][sw]["V"]"#]), ("count", ["tableId": 3]),
            ("findById", ["tableId": 3, "id": .string(broken)]), ("findByIds", ["tableId": 3, "ids": .array(ids.map(JSONValue.string))]),
            ("deleteByIds", ["tableId": 3, "ids": .array(ids.map(JSONValue.string))]),
        ] {
            let answer = try await viewer.request(command, data: data)
            #expect(answer.errorCode == 500, "\(command)")
            #expect(answer.errorMessage.contains("entry '\(broken)' of table 3"), "\(command): \(answer.errorMessage)")
        }
        // The failed delete changed nothing; the sound entry is still served on its own.
        #expect(try await viewer.request("findById", data: ["tableId": 3, "id": .string(ids[0])]).data["Name"] == "Vera")
        await #expect(throws: CorruptEntryError(tableId: 3, entryId: broken, reason: "it is an array, not an object")) {
            try await host.runtime.database.pool.write { db in
                try db.execute(sql: "UPDATE tableEntry SET body = '[1]' WHERE id = ?", arguments: [broken])
            }
            _ = try await TablesStore(database: host.runtime.database).entries(tableId: 3)
        }
        await viewer.close()
        await host.stop()
    }

    @Test("an invalid regular expression in a table query is a 400 that names it")
    func invalidRegex() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        let viewer = try await host.connectViewer()
        _ = try await viewer.request("insertEntry", data: ["tableId": 4, "entry": ["Name": "Vera"]])
        for command in ["findByQuery", "countByQuery"] {
            let answer = try await viewer.request(command, data: ["tableId": 4, "query": #"[Name][re]["(V"]"#])
            #expect(answer.errorCode == 400, "\(command)")
            #expect(answer.errorMessage.contains("invalid regular expression '(V'"), "\(command): \(answer.errorMessage)")
        }
        let valid = try await viewer.request("countByQuery", data: ["tableId": 4, "query": #"[Name][re]["^V"]"#])
        #expect(valid.data == ["count": 1])
        await viewer.close()
        await host.stop()
    }

    @Test("a session whose stored state is unknown is an error naming it, not a session in progress")
    func corruptSession() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        let viewer = try await host.connectViewer()
        let sessionId = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
        try await host.runtime.database.pool.write { db in
            try db.execute(sql: "UPDATE session SET state = 42 WHERE id = ?", arguments: [sessionId])
        }
        let answer = try await viewer.request("getSessionById", data: ["id": .string(sessionId)])
        #expect(answer.errorCode == 500)
        #expect(answer.errorMessage.contains("the stored session record '\(sessionId)' cannot be read"), "\(answer.errorMessage)")
        await #expect(throws: CorruptRecordError.self) { _ = try await host.runtime.analytics.sessions() }
        let snapshot = try await httpGet(host.inspectorURL.replacingOccurrences(of: "inspector?", with: "inspector/snapshot?"))
        #expect(snapshot.status == 500)
        #expect(String(decoding: snapshot.body, as: UTF8.self).contains(sessionId))
        await viewer.close()
        await host.stop()
    }
}
