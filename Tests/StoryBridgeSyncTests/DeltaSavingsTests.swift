import Foundation
import StoryBridge
import StoryBridgeSync
import Testing

@Suite("Delta updates: the bytes saved in the progress lines and in sync --status", .serialized)
struct DeltaSavingsTests {
    @Test(
        "two delta updates of one deck and a full install of another: the progress lines say what each saved, --status per deck and in all, from the history"
    )
    func savedBytesShown() async throws {
        let lab = try await SyncLab.loggedIn { lab in
            try DeltaSyncTests.publishDeck(lab, id: 3, version: "v1")
            try DeltaSyncTests.publishDeck(lab, id: 4, version: "v1")
        }
        let first = try await lab.cli(["sync", "--content"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(!first.errors.contains("saved"))
        let none = try await lab.cli(["sync", "--status"])
        #expect(!none.output.contains("saved"), "\(none.output)")

        for (version, slide) in [("v2", 7), ("v3", 12)] {
            try DeltaSyncTests.publishDeck(lab, id: 3, version: version, changedSlide: slide)
            let update = try await lab.cli(["sync", "--content"])
            #expect(update.status == 0, "\(update.errors)")
            // Standard error is not a terminal here: plain lines.
            #expect(update.errors.contains("delta update, fetching"), "\(update.errors)")
            let installed = try #require(update.errors.split(separator: "\n").first { $0.contains("revision") && $0.contains("installed") })
            #expect(installed.contains("(delta update, ") && installed.contains(" MB saved)"), "\(installed)")
            #expect(update.output.contains("1 delta update in"), "\(update.output)")
        }

        let history = try lab.clientLibrary().history(id: 3)
        #expect(history.map(\.how) == ["full", "delta", "delta"])
        let packageSize = try #require(try await lab.catalog()[3]?.packageSize)
        #expect(history.last?.packageSize == packageSize)
        let deltas = history.filter { $0.how == "delta" }
        let saved = deltas.reduce(Int64(0)) { $0 + ($1.packageSize ?? 0) - $1.bytes }
        #expect(deltas.allSatisfy { $0.bytesSaved > 0 && $0.bytesSaved == ($0.packageSize ?? 0) - $0.bytes })
        #expect(history.first?.bytesSaved == 0)

        let status = try await lab.cli(["sync", "--status"])
        #expect(status.status == 0, "\(status.errors)")
        let line = try #require(status.output.split(separator: "\n").first { $0.hasPrefix("     3 ") })
        #expect(line.contains(String(format: "%.1f MB saved by delta updates", Double(saved) / 1e6)), "\(line)")
        let other = try #require(status.output.split(separator: "\n").first { $0.hasPrefix("     4 ") })
        #expect(!other.contains("saved"), "\(other)")
        #expect(status.output.contains(String(format: "delta updates saved %.1f MB in all", Double(saved) / 1e6)), "\(status.output)")

        let json = try await lab.cli(["sync", "--status", "--json"])
        let document = try JSONValue.parse(json.output)
        #expect(document["bytesSavedByDelta"]?.intValue == Int(saved))
        let rows = try #require(document["presentations"]?.arrayValue)
        #expect(rows.first { $0["presId"] == 3 }?["bytesSavedByDelta"]?.intValue == Int(saved))
        #expect(rows.first { $0["presId"] == 4 }?["bytesSavedByDelta"]?.intValue == 0)
        // Unsigned decks say so (the hashes recorded at install are checked by `verify`).
        #expect(line.contains(", unsigned"), "\(line)")
        #expect(rows.first { $0["presId"] == 3 }?["trust"]?["status"] == "unsigned")
        await lab.stopServer()
    }
}
