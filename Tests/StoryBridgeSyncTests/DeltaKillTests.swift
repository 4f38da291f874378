import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

@Suite("Delta updates killed with SIGKILL leave the old revision served", .serialized)
struct DeltaKillTests {
    /// Every regular file under `folder`, by relative path.
    static func files(in folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            let url = folder.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                files[path] = try Data(contentsOf: url)
            }
        }
        return files
    }

    /// A lab with presentation 3 installed at v1, v2 published and its metadata synced, and
    /// the server answering blob requests after `blobDelay`.
    static func labWithUpdate(blobDelay: Duration) async throws -> (lab: SyncLab, old: [String: Data]) {
        let lab = try await SyncLab.loggedIn { try DeltaSyncTests.publishDeck($0, id: 3, version: "v1") }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let old = try files(in: try #require(try lab.clientLibrary().entry(id: 3)).presentation.root)
        try DeltaSyncTests.publishDeck(lab, id: 3, version: "v2")
        #expect(try await lab.cli(["sync"]).status == 0)
        var faults = TestFaults()
        faults.blobDelay = blobDelay
        try await lab.startServer(faults: faults)
        return (lab, old)
    }

    /// After a kill: the served folder is one whole revision; the next sync completes and leaves
    /// no work file or staging folder.
    static func expectRecovers(_ lab: SyncLab, old: [String: Data], expectOld: Bool) async throws {
        let new = try files(in: try #require(try lab.serverLibrary.entry(id: 3)).presentation.root)
        let served = try files(in: try #require(try lab.clientLibrary().entry(id: 3)).presentation.root)
        #expect(served == old || served == new, "the served folder mixes revisions")
        if expectOld { #expect(served == old) }
        let next = try await lab.cli(["sync", "--content"])
        #expect(next.status == 0, "\(next.errors)")
        #expect(try files(in: try #require(try lab.clientLibrary().entry(id: 3)).presentation.root) == new)
        if served == old { #expect(next.errors.contains("delta update"), "\(next.errors)") }
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: lab.clientDirectory.staging.path)) ?? []
        #expect(staging.isEmpty, "\(staging)")
        // A kill during a ready tree's build leaves a partial one: the next run removes it and
        // builds the tree of what it installed.
        try ReadyTreeTests.expectTreeOfInstalledRevision(lab, id: 3)
        // A kill after the swap and before the verified facts were written (they are written
        // after it, docs/design/TRUST.md 2.3.1), or inside the ready tree's build (the facts are
        // off the disk while it links), leaves the new revision served without them, and the
        // next run has nothing to install: they are then missing, which only means the next
        // delta hashes the reused files.
        try await expectVerified(lab, factsMayBeMissing: served == new)
    }

    /// The served revision verifies (`storybridge verify`), and its verified facts
    /// (docs/design/TRUST.md 2.3.1) are of its record and hold for every one of its files; with
    /// `factsMayBeMissing`, when there are any.
    static func expectVerified(_ lab: SyncLab, factsMayBeMissing: Bool = false) async throws {
        let verified = try await lab.cli(["verify", "3"])
        #expect(verified.status == 0, "\(verified.output) \(verified.errors)")
        let root = try #require(try lab.clientLibrary().entry(id: 3)).presentation.root
        let stored = VerifiedFacts.load(forFolder: root.lastPathComponent, in: lab.clientDirectory)
        if stored == nil, factsMayBeMissing { return }
        let facts = try #require(stored)
        #expect(facts.manifestHash == (try lab.trustRow(3)?["manifestHash"] as String?))
        let listing = try TreeHasher.factsListing(of: root)
        #expect(facts.files.count == listing.count)
        for (path, current) in listing { #expect(facts.files[path]?.facts == current, "\(path): facts no longer hold") }
    }

    @Test("SIGKILL while the changed entries are being fetched (the changes zip exists): old revision served, next sync completes by delta")
    func killedFetchingEntries() async throws {
        let (lab, old) = try await Self.labWithUpdate(blobDelay: .milliseconds(500))
        let child = try await lab.spawn(["sync", "--content"])
        try await SyncLab.waitUntil { lab.leftoverDownloads().contains { $0.hasSuffix(".delta.changes.zip") } }
        child.process.kill()
        _ = await SyncLab.finish(child)
        #expect(lab.leftoverDownloads().contains { $0.hasSuffix(".delta.changes.zip") })
        // The folder of linked unchanged files is made before the fetch starts: the kill leaves it too.
        #expect(lab.leftoverDownloads().contains { $0.hasSuffix(".delta.linked") })
        try await Self.expectRecovers(lab, old: old, expectOld: true)
        await lab.stopServer()
    }

    @Test(
        "SIGKILL at moments spread over a delta sync whose blob requests take 300 ms each: the served folder is always one whole revision",
        arguments: [100, 250, 400, 550, 700, 850, 1000])
    func killedAtMoments(afterMilliseconds delay: Int) async throws {
        let (lab, old) = try await Self.labWithUpdate(blobDelay: .milliseconds(300))
        let child = try await lab.spawn(["sync", "--content"])
        try await Task.sleep(for: .milliseconds(delay))
        child.process.kill()
        _ = await SyncLab.finish(child)
        try await Self.expectRecovers(lab, old: old, expectOld: false)
        await lab.stopServer()
    }

    @Test("delta work files a killed run left after its swap are removed by the next run, which has nothing to fetch")
    func workFilesLeftAfterTheSwap() async throws {
        let (lab, _) = try await Self.labWithUpdate(blobDelay: .zero)
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        // What a kill between the swap and the work files' removal leaves.
        let downloads = SyncPaths(lab.clientDirectory).downloads
        for name in ["3-r2.delta.changes.zip", "3-r2.delta.listing.zip"] {
            #expect(FileManager.default.createFile(atPath: downloads.appendingPathComponent(name).path, contents: Data("PK".utf8)))
        }
        let linked = downloads.appendingPathComponent("3-r2.delta.linked/slides")
        try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: linked.appendingPathComponent("s01.html").path, contents: Data("<p>".utf8)))
        let next = try await lab.cli(["sync", "--content"])
        #expect(next.status == 0, "\(next.errors)")
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await lab.stopServer()
    }
}
