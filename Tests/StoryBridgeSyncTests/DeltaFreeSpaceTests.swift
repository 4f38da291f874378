import Foundation
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting
import Synchronization
import Testing

/// The delta path checks free space as the full path does, against what it needs itself: the
/// fetched ranges plus the changed files unpacked (unchanged files are hard links). The disk is
/// the lab's real one; ``ContentSync/freeBytes`` stands for how much of it is free.
@Suite("Delta updates: free space is checked before any entry is fetched", .serialized)
struct DeltaFreeSpaceTests {
    /// A content sync of the lab's client as `storybridge sync --content` runs it, with the free
    /// space `free` bytes whatever the disk holds.
    static func sync(_ lab: SyncLab, free: Int64) async throws -> (report: ContentSyncReport, events: [ContentSyncEvent]) {
        let service = try lab.service()
        var sync = ContentSync(
            api: service.api, catalog: service.catalog, library: service.library, paths: service.paths,
            downloader: ResumableDownloader(logger: service.logger), logger: service.logger)
        sync.freeBytes = { _ in free }
        let events = Mutex<[ContentSyncEvent]>([])
        let report: ContentSyncReport
        do {
            _ = try await service.syncMetadata()
            report = try await sync.run(ids: nil) { event in events.withLock { $0.append(event) } }
        } catch {
            await service.shutdown()
            throw error
        }
        await service.shutdown()
        return (report, events.withLock { $0 })
    }

    @Test(
        "less free space than the changed slide needs: refused with the full path's message, nothing fetched past the listing, the old revision stays"
    )
    func refusedWhenTheDiskIsFull() async throws {
        let lab = try await SyncLab.loggedIn { try DeltaSyncTests.publishDeck($0, id: 3, version: "v1") }
        let first = try await DeltaSyncTests.sync(lab)
        #expect(first.report.installed.map(\.id) == [3])
        let served = try #require(try lab.clientLibrary().entry(id: 3)).presentation.root

        try DeltaSyncTests.publishDeck(lab, id: 3, version: "v2")
        // The changed slide is about 3 KB unpacked: 1 KB free is too little.
        let refused = try await Self.sync(lab, free: 1_000)
        #expect(refused.report.installed.isEmpty)
        let failure = try #require(refused.report.failed.first)
        guard case .insufficientSpace(let needed, let available) = failure.error else {
            Issue.record("expected insufficientSpace, got \(failure.error)")
            return
        }
        #expect(available == 1_000)
        #expect(needed > 1_000 && needed < 20_000, "\(needed) bytes needed for one changed slide")
        #expect(failure.error.description.hasPrefix("not enough free disk space:"), "\(failure.error)")
        // Refused before the changed entry was fetched: no delta event, no changes file left.
        #expect(!refused.events.contains { if case .delta = $0 { true } else { false } })
        #expect(!refused.events.contains { if case .started = $0 { true } else { false } })
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        #expect(try #require(try lab.clientLibrary().entry(id: 3)).presentation.root == served)
        #expect(try String(contentsOf: served.appendingPathComponent("slides/s07.html"), encoding: .utf8).contains("Slide 7 v1"))
        #expect(try await lab.catalog()[3]?.state == .failed)

        // Room for the delta but not for the whole package (about 1.5 MB, twice over): the delta
        // goes through, since it needs only its own bytes.
        let updated = try await Self.sync(lab, free: 200_000)
        #expect(updated.report.failed.isEmpty, "\(updated.report.failed)")
        #expect(updated.report.deltaUpdates == 1)
        try DeltaSyncTests.expectSameFiles(lab, id: 3)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await lab.stopServer()
    }
}
