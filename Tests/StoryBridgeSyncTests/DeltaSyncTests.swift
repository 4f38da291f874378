import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Synchronization
import Testing

@Suite("Delta updates: only the changed entries of a new package are fetched", .serialized)
struct DeltaSyncTests {
    /// Publishes on the lab's server a deck of 20 slides and three media files (about 1.5 MB);
    /// slide `changedSlide` (1...20) carries `version`, the others stay the same in every version.
    @discardableResult
    static func publishDeck(
        _ lab: SyncLab, id: Int, version: String, changedSlide: Int = 7, filmSeed: UInt64 = 1
    ) throws -> LibraryStore.Entry {
        let zip = lab.folder.appendingPathComponent("deck-\(id)-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<!DOCTYPE html><html><head><title>deck \(id)</title></head><body>start</body></html>")
        for slide in 1...20 {
            let marker = slide == changedSlide ? version : "same"
            try writer.add(
                String(format: "slides/s%02d.html", slide),
                text: "<!DOCTYPE html><html><body><h1>Slide \(slide) \(marker)</h1>" + String(repeating: "<p>text \(slide)</p>", count: 200)
                    + "</body></html>")
        }
        var film = SeededBytes(seed: filmSeed)
        try writer.add("mediafiles/film.mp4", data: film.bytes(900_000), compress: false)
        var pictures = SeededBytes(seed: 99)
        try writer.add("mediafiles/a.png", data: pictures.bytes(300_000), compress: false)
        try writer.add("mediafiles/b.png", data: pictures.bytes(300_000), compress: false)
        try writer.close()
        defer { try? FileManager.default.removeItem(at: zip) }
        return try lab.serverLibrary.install(zip: zip, options: .init(id: id, name: "Deck \(id)"))
    }

    /// Runs metadata and content sync in this process; returns the content report and the events.
    /// A logged-in lab with deck `id` published at v1 and synced once: where a delta update starts.
    static func syncedDeck(id: Int) async throws -> SyncLab {
        let lab = try await SyncLab.loggedIn { try publishDeck($0, id: id, version: "v1") }
        _ = try await sync(lab)
        return lab
    }

    static func sync(_ lab: SyncLab, rateLimit: TransferRate? = nil) async throws -> (
        report: ContentSyncReport, events: [ContentSyncEvent]
    ) {
        let service = try lab.service()
        let events = Mutex<[ContentSyncEvent]>([])
        let report: ContentSyncReport
        do {
            _ = try await service.syncMetadata()
            report = try await service.syncContent(ids: nil, rateLimit: rateLimit) { event in events.withLock { $0.append(event) } }
        } catch {
            await service.shutdown()
            throw error
        }
        await service.shutdown()
        return (report, events.withLock { $0 })
    }

    /// Runs a metadata sync only (the client learns of the new package before it is altered).
    static func syncMetadata(_ lab: SyncLab) async throws {
        let service = try lab.service()
        do {
            _ = try await service.syncMetadata()
        } catch {
            await service.shutdown()
            throw error
        }
        await service.shutdown()
    }

    /// Every file of the client's installed presentation `id` equals the server library's.
    static func expectSameFiles(_ lab: SyncLab, id: Int) throws {
        let client = try #require(try lab.clientLibrary().entry(id: id)).presentation.root
        let server = try #require(try lab.serverLibrary.entry(id: id)).presentation.root
        let files = try FileManager.default.subpathsOfDirectory(atPath: server.path).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: server.appendingPathComponent($0).path, isDirectory: &isFolder)
                && !isFolder.boolValue
        }
        #expect(files.count == 24)
        for file in files {
            let same = FileManager.default.contentsEqual(
                atPath: client.appendingPathComponent(file).path, andPath: server.appendingPathComponent(file).path)
            #expect(same, "\(file) differs")
        }
    }

    static func inode(_ url: URL) -> UInt64 {
        var status = stat()
        return stat(url.path, &status) == 0 ? UInt64(status.st_ino) : 0
    }

    @Test("one changed slide: the central directory and that slide are fetched in at most 3 range requests, the rest is hard-linked")
    func oneSlideChanged() async throws {
        let lab = try await SyncLab.loggedIn { try Self.publishDeck($0, id: 3, version: "v1") }
        let first = try await Self.sync(lab)
        #expect(first.report.installed.map(\.id) == [3])
        #expect(first.report.deltaUpdates == 0)
        let oldRoot = try #require(try lab.clientLibrary().entry(id: 3)).presentation.root
        let oldFilm = Self.inode(oldRoot.appendingPathComponent("mediafiles/film.mp4"))

        try Self.publishDeck(lab, id: 3, version: "v2")
        let second = try await Self.sync(lab)
        #expect(second.report.failed.isEmpty, "\(second.report.failed)")
        #expect(second.report.installed.map(\.id) == [3])
        #expect(second.report.deltaUpdates == 1)
        #expect(second.report.deltaRequests <= 3)
        // The content server keeps connections alive: one for all the update's range requests.
        #expect(second.report.deltaConnections == 1)
        let packageSize = try #require(try await lab.catalog()[3]?.packageSize)
        // The tail request asks for the last 64 KB (the central directory and end record), then the slide.
        #expect(second.report.bytesTransferred < 80_000, "\(second.report.bytesTransferred) bytes for a one-slide change")
        #expect(second.report.bytesSaved == packageSize - second.report.bytesTransferred)
        try Self.expectSameFiles(lab, id: 3)
        let newRoot = try #require(try lab.clientLibrary().entry(id: 3)).presentation.root
        #expect(newRoot != oldRoot)
        #expect(Self.inode(newRoot.appendingPathComponent("mediafiles/film.mp4")) == oldFilm)
        #expect(try String(contentsOf: newRoot.appendingPathComponent("slides/s07.html"), encoding: .utf8).contains("Slide 7 v2"))
        #expect(second.events.contains { if case .delta(3, _, _, _) = $0 { true } else { false } })
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        #expect(try await lab.catalog()[3]?.state == .ready)

        // A third revision goes by delta again: the delta install kept an index too.
        try Self.publishDeck(lab, id: 3, version: "v3", changedSlide: 12)
        let third = try await Self.sync(lab)
        #expect(third.report.deltaUpdates == 1)
        try Self.expectSameFiles(lab, id: 3)
        await lab.stopServer()
    }

    @Test("--limit-rate holds for range requests: ~70 KB of a delta at 64 KB/s take at least 0.7 s")
    func rateLimited() async throws {
        let lab = try await Self.syncedDeck(id: 7)
        try Self.publishDeck(lab, id: 7, version: "v2")
        let started = ContinuousClock.now
        let second = try await Self.sync(lab, rateLimit: TransferRate(bytesPerSecond: 64 * 1024))
        let elapsed = ContinuousClock.now - started
        #expect(second.report.deltaUpdates == 1)
        // The bucket lets a 16 KB burst through at once; the rest passes at the rate.
        let floor = Double(second.report.bytesTransferred - 16 * 1024) / Double(64 * 1024)
        #expect(elapsed >= .seconds(floor * 0.95), "\(second.report.bytesTransferred) bytes in \(elapsed)")
        #expect(floor >= 0.7)
        await lab.stopServer()
    }

    @Test("a server that ignores ranges (200, Accept-Ranges: none): the whole package is downloaded, the reason is reported")
    func rangesIgnored() async throws {
        let lab = try SyncLab()
        try Self.publishDeck(lab, id: 4, version: "v1")
        var faults = TestFaults()
        faults.ignoreRanges = true
        try await lab.startServer(faults: faults)
        try await lab.loginAsService()
        _ = try await Self.sync(lab)
        try Self.publishDeck(lab, id: 4, version: "v2")
        let second = try await Self.sync(lab)
        #expect(second.report.installed.map(\.id) == [4])
        #expect(second.report.deltaUpdates == 0)
        let packageSize = try #require(try await lab.catalog()[4]?.packageSize)
        // The declined tail request is cut at its head; the full download brings the package once.
        #expect(second.report.bytesTransferred >= packageSize)
        #expect(second.report.bytesTransferred <= packageSize + packageSize / 50)
        let reasons = second.events.compactMap { if case .deltaDeclined(4, let reason) = $0 { reason } else { nil } }
        #expect(reasons == [DeltaFallback.rangesRefused.description])
        try Self.expectSameFiles(lab, id: 4)
        await lab.stopServer()
    }

    @Test("more than half of the bytes changed: the whole package is downloaded")
    func mostBytesChanged() async throws {
        let lab = try await Self.syncedDeck(id: 5)
        try Self.publishDeck(lab, id: 5, version: "v2", filmSeed: 2)
        let second = try await Self.sync(lab)
        #expect(second.report.deltaUpdates == 0)
        let reasons = second.events.compactMap { if case .deltaDeclined(5, let reason) = $0 { reason } else { nil } }
        #expect(reasons.count == 1 && reasons[0].contains("more than half"), "\(reasons)")
        try Self.expectSameFiles(lab, id: 5)
        await lab.stopServer()
    }

    /// Replaces, in the served package of presentation `id`, every occurrence of `old` by `new`
    /// (same length), leaving its ETag as it was built.
    static func rewriteServedPackage(_ lab: SyncLab, id: Int, replacing old: String, with new: String) async throws {
        let file = try await lab.serverPackage(id: id)
        var bytes = try Data(contentsOf: file)
        let from = Data(old.utf8)
        var changed = 0
        while let found = bytes.range(of: from) {
            bytes.replaceSubrange(found, with: Data(new.utf8))
            changed += 1
        }
        #expect(changed > 0)
        try bytes.write(to: file)
    }

    @Test("a hostile name in the new central directory is refused by the delta path as by a full install; the old revision stays")
    func hostileListingRefused() async throws {
        let lab = try await Self.syncedDeck(id: 6)
        let servedBefore = try #require(try lab.clientLibrary().entry(id: 6)).presentation.root
        try Self.publishDeck(lab, id: 6, version: "v2")
        try await Self.syncMetadata(lab)
        try await Self.rewriteServedPackage(lab, id: 6, replacing: "slides/s03.html", with: "../des/s03.html")
        let second = try await Self.sync(lab)
        #expect(second.report.installed.isEmpty)
        let failure = try #require(second.report.failed.first)
        guard case .packageRefused(6, .unsafeEntry(let name, _)) = failure.error else {
            Issue.record("expected an unsafe entry, got \(failure.error)")
            return
        }
        #expect(name == "../des/s03.html")
        // Refused from its listing: no entry fetched, and no full download tried.
        #expect(!second.events.contains { if case .started = $0 { true } else { false } })
        #expect(try lab.clientLibrary().entry(id: 6)?.presentation.root == servedBefore)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await lab.stopServer()
    }

    @Test("a changed entry whose bytes fail their CRC-32 is refused; nothing is installed or left")
    func corruptEntryRefused() async throws {
        let lab = try await Self.syncedDeck(id: 8)
        let servedBefore = try #require(try lab.clientLibrary().entry(id: 8)).presentation.root
        // Slide 7 changed; two bytes inside its deflated data are flipped on the server.
        try Self.publishDeck(lab, id: 8, version: "v2")
        try await Self.syncMetadata(lab)
        let file = try await lab.serverPackage(id: 8)
        var bytes = try Data(contentsOf: file)
        // The first occurrence of the name is in its local header (30 bytes, name, extra field).
        let name = try #require(bytes.range(of: Data("slides/s07.html".utf8)))
        let extraLength = Int(bytes[name.lowerBound - 2]) | Int(bytes[name.lowerBound - 1]) << 8
        let dataStart = name.upperBound + extraLength + 8
        bytes[dataStart] ^= 0x55
        bytes[dataStart + 1] ^= 0x55
        try bytes.write(to: file)
        let second = try await Self.sync(lab)
        #expect(second.report.installed.isEmpty)
        let failure = try #require(second.report.failed.first)
        #expect(second.events.contains { if case .delta(8, _, _, _) = $0 { true } else { false } })
        guard case .packageRefused(8, _) = failure.error else {
            Issue.record("expected a refused package, got \(failure.error)")
            return
        }
        #expect(try lab.clientLibrary().entry(id: 8)?.presentation.root == servedBefore)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await lab.stopServer()
    }
}
