import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

@Suite("Interrupted syncs resume", .serialized)
struct InterruptedSyncTests {
    static let packageBytes = 3_000_000

    /// A lab whose server cuts every blob response after 200 KB, so a download takes many
    /// resumed requests and can be interrupted half way.
    func slowLab() async throws -> SyncLab {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 5, title: "five v1", payloadBytes: Self.packageBytes) }
        #expect(try await lab.cli(["sync"]).status == 0)
        try await lab.startServer(faults: TestFaults(dropAfterBytes: 200_000))
        return lab
    }

    func partBytes(_ lab: SyncLab) -> Int64 {
        let folder = SyncPaths(lab.clientDirectory).downloads
        return lab.leftoverDownloads().filter { $0.hasSuffix(".part") }.reduce(Int64(0)) { sum, name in
            sum
                + (((try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path))?[.size] as? NSNumber)?
                    .int64Value ?? 0)
        }
    }

    func expectIntact(_ lab: SyncLab) async throws {
        #expect(try lab.installedTitle(5) == "five v1")
        let entry = try #require(try lab.clientLibrary().entry(id: 5))
        let film = try Data(contentsOf: entry.presentation.root.appendingPathComponent("mediafiles/film.mp4"))
        var generator = SeededBytes(seed: UInt64(5) &* 2_654_435_761 &+ UInt64("five v1".utf8.count))
        #expect(film == generator.bytes(Self.packageBytes))
        #expect(try await lab.catalog()[5]?.state == .ready)
        #expect(lab.leftoverDownloads().isEmpty)
    }

    @Test("SIGKILL during a download, then a sync that resumes and completes with nothing corrupt")
    func killedThenResumed() async throws {
        let lab = try await slowLab()
        let child = try await lab.spawn(["sync", "--content"])
        try await SyncLab.waitUntil { partBytes(lab) > 300_000 }
        child.process.kill()
        _ = await SyncLab.finish(child)
        let kept = partBytes(lab)
        #expect(kept > 0 && kept < Int64(Self.packageBytes))
        #expect(try lab.clientLibrary().entry(id: 5) == nil)

        try await lab.startServer()
        let resumed = try await lab.cli(["sync", "--content"])
        #expect(resumed.status == 0, "\(resumed.errors)")
        #expect(resumed.output.contains("resumed from earlier runs"))
        try await expectIntact(lab)
        await lab.stopServer()
    }

    @Test(
        "Ctrl-C (SIGINT) or SIGTERM stops with status 130 and keeps the partial download; the next sync resumes it",
        arguments: [SIGINT, SIGTERM])
    func interruptedThenResumed(signal: Int32) async throws {
        let lab = try await slowLab()
        let child = try await lab.spawn(["sync", "--content"])
        try await SyncLab.waitUntil { partBytes(lab) > 300_000 }
        child.process.send(signal)
        let stopped = await SyncLab.finish(child)
        #expect(stopped.status == 130, "\(stopped.errors)")
        #expect(stopped.errors.contains("partial downloads are kept"))
        #expect(stopped.errors.contains("kept: 1 partial download,"), "\(stopped.errors)")
        #expect(partBytes(lab) > 0)
        #expect(try await lab.catalog()[5]?.state == .notDownloaded)

        let resumed = try await lab.cli(["sync", "--content"])
        #expect(resumed.status == 0, "\(resumed.errors)")
        #expect(resumed.output.contains("resumed from earlier runs"))
        try await expectIntact(lab)
        await lab.stopServer()
    }
}
