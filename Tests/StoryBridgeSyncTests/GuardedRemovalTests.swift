import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

@Suite("Sync: presentations gone from the service are withdrawn, then removed after a grace or with --prune", .serialized)
struct GuardedRemovalTests {
    @Test("an empty client list (200 []) withdraws nothing and says why; the next run finds everything again")
    func transientEmptyList() async throws {
        let lab = try await SyncLab.loggedIn { for id in 1...3 { try $0.publish(id: id) } }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)

        lab.server!.updateFaults { $0.emptyClientLists = 1 }
        let empty = try await lab.cli(["sync"])
        #expect(empty.status == 80, "\(empty.output) \(empty.errors)")
        #expect(empty.output.contains("0 withdrawn, 0 removed"))
        #expect(empty.errors.contains("the service no longer offers 3 of the 3 synced presentations (1, 2, 3); none was withdrawn"))
        #expect(try await lab.catalog().values.allSatisfy { $0.state == .ready })
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [1, 2, 3])
        #expect(try await lab.cli(["sync", "--status"]).output.contains("none was withdrawn"))

        let next = try await lab.cli(["sync"])
        #expect(next.status == 0, "\(next.errors)")
        #expect(next.output.contains("3 unchanged, 0 withdrawn, 0 removed"))
        await lab.stopServer()
    }

    @Test("a shortened list withdraws (off serve's list, files kept) and removes after --removal-grace; more than half gone needs --prune")
    func withdrawThenRemove() async throws {
        let lab = try await SyncLab.loggedIn { for id in 1...4 { try $0.publish(id: id) } }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let folder4 = try #require(try lab.clientLibrary().entry(id: 4)).presentation.root

        try lab.serverLibrary.remove(id: 4)
        let shortened = try await lab.cli(["sync"])
        #expect(shortened.status == 0, "\(shortened.errors)")
        #expect(shortened.output.contains("1 withdrawn, 0 removed"))
        #expect(try await lab.catalog()[4]?.state == .withdrawn)
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [1, 2, 3])
        #expect(try lab.clientLibrary().entry(id: 4) != nil)
        #expect(FileManager.default.fileExists(atPath: folder4.appendingPathComponent("index.html").path))
        #expect(try await lab.cli(["sync", "--status"]).output.contains("withdrawn (gone from the service since"))
        // list marks it as it marks hidden and blocked decks, and says so in --json.
        let list = try await lab.cli(["list"])
        #expect(list.status == 0, "\(list.errors)")
        let listed = list.output.split(separator: "\n").filter { $0.contains("[withdrawn]") }
        #expect(listed.count == 1 && listed.first?.hasPrefix("   4 ") == true, "\(list.output)")
        let json = try JSONValue.parse(try await lab.cli(["list", "--json"]).output).arrayValue ?? []
        let withdrawn = json.compactMap { $0["withdrawn"] == true ? $0["presId"]?.intValue : nil }
        #expect(withdrawn == [4], "\(json)")

        let withinGrace = try await lab.cli(["sync", "--removal-grace", "1h"])
        #expect(withinGrace.output.contains("0 withdrawn, 0 removed"))
        #expect(try lab.clientLibrary().entry(id: 4) != nil)
        let pastGrace = try await lab.cli(["sync", "--removal-grace", "0s"])
        #expect(pastGrace.status == 0, "\(pastGrace.errors)")
        #expect(pastGrace.output.contains("0 withdrawn, 1 removed"))
        #expect(try lab.clientLibrary().entry(id: 4) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder4.path))
        #expect(try await lab.catalog()[4] == nil)

        // Two of the three left go: more than half, held back until --prune.
        try lab.serverLibrary.remove(id: 2)
        try lab.serverLibrary.remove(id: 3)
        let held = try await lab.cli(["sync"])
        #expect(held.status == 80)
        #expect(held.errors.contains("the service no longer offers 2 of the 3 synced presentations (2, 3)"))
        #expect(try lab.clientLibrary().servedEntries().map(\.presentation.id) == [1, 2, 3])
        let pruned = try await lab.cli(["sync", "--prune"])
        #expect(pruned.status == 0, "\(pruned.errors)")
        #expect(pruned.output.contains("2 removed"))
        #expect(try lab.clientLibrary().entries().map(\.presentation.id) == [1])
        #expect(try await lab.catalog().keys.sorted() == [1])
        await lab.stopServer()
    }

    @Test("a package republished under an unchanged presentation revision is found (every presentation is fetched) and installed")
    func republishedPackage() async throws {
        let lab = try await SyncLab.loggedIn { lab in
            try lab.publish(id: 5, payloadBytes: 50_000)
            try lab.publish(id: 6, payloadBytes: 50_000)
        }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let before = try #require(try await lab.catalog()[5])

        let republished = try await lab.server!.republish(5)
        let after = try await lab.cli(["sync"])
        #expect(after.status == 0, "\(after.errors)")
        #expect(after.output.contains("1 changed, 1 unchanged"))
        let row = try #require(try await lab.catalog()[5])
        #expect(row.fetchedRevision == before.fetchedRevision, "the presentation revision did not change")
        #expect(row.packageRevision == republished.revision && row.packageRevision != before.packageRevision)
        #expect(row.state == .updateAvailable)
        let update = try await lab.cli(["sync", "--content"])
        #expect(update.status == 0, "\(update.errors)")
        #expect(update.output.contains("content: 1 installed, 1 up to date"))
        let installed = try #require(try await lab.catalog()[5])
        #expect(installed.installedRevision == republished.revision)
        #expect(installed.installedPackageId == installed.packageId)
        #expect(installed.state == .ready)
        await lab.stopServer()
    }
}
