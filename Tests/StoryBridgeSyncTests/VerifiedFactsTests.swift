import Foundation
import StoryBridge
import StoryBridgeSync
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Delta updates of a signed deck with verified facts (docs/design/TRUST.md 2.3.1): a real
/// content server on loopback that signs, the kiosk's pinned root, syncs in this process (so
/// ``HashCounter`` sees what the verification read) of a 24-file deck whose slide 7 changes.
@Suite("Delta updates: verified facts vouch for reused files", .serialized)
struct VerifiedFactsTests {
    /// A lab whose server signs deck 3 (`v1`), its root pinned by the kiosk, which installed it
    /// with a sync in this process (every file hashed).
    static func signedDeck() async throws -> SyncLab {
        let lab = try await SyncLab.serving { try DeltaSyncTests.publishDeck($0, id: 3, version: "v1") }
        await lab.stopServer()
        _ = try await lab.signAndPin()
        try await lab.startServer()
        try await lab.loginAsService()
        HashCounter.watch(lab.clientDirectory.root)
        let first = try await DeltaSyncTests.sync(lab)
        #expect(first.report.installed.map(\.id) == [3], "\(first.report.failed)")
        #expect(HashCounter.count(under: lab.clientDirectory.root) == 24)
        #expect(try lab.trustRow(3)?["signed"] as Int? == 1)
        return lab
    }

    /// Publishes `version` of deck 3 (slide 7 changed) and waits until the server signed it;
    /// returns the manifest's file.
    @discardableResult
    static func publishSigned(_ lab: SyncLab, version: String) async throws -> URL {
        let entry = try DeltaSyncTests.publishDeck(lab, id: 3, version: version)
        return try await lab.signedManifestFile(presentationRevision: entry.presentation.revision)
    }

    /// The folder deck 3 is served from on the kiosk.
    static func servedFolder(_ lab: SyncLab) throws -> URL {
        try #require(try lab.clientLibrary().entry(id: 3)).presentation.root
    }

    @Test("a one-slide delta hashes only the fetched slide, again after the ready tree's build and the library's sweep")
    func oneSlideHashesOne() async throws {
        let lab = try await Self.signedDeck()
        let v1 = try Self.servedFolder(lab)
        #expect(FileManager.default.fileExists(atPath: VerifiedFacts.file(forFolder: v1.lastPathComponent, in: lab.clientDirectory).path))
        // v2 follows v1's ready tree (built after its install); v3 follows v2's; v4 follows the
        // library's sweep of v1's folder (released when v3 was installed: one revision is kept),
        // whose names shared the reused inodes.
        var served = v1
        for version in ["v2", "v3", "v4"] {
            try await Self.publishSigned(lab, version: version)
            HashCounter.watch(lab.clientDirectory.root)
            let update = try await DeltaSyncTests.sync(lab)
            #expect(update.report.failed.isEmpty, "\(version): \(update.report.failed)")
            #expect(update.report.deltaUpdates == 1, "\(version)")
            #expect(HashCounter.count(under: lab.clientDirectory.root) == 1, "\(version)")
            try DeltaSyncTests.expectSameFiles(lab, id: 3)
            let next = try Self.servedFolder(lab)
            #expect(next != served)
            served = next
            let row = try #require(try lab.trustRow(3))
            #expect(row["signed"] as Int == 1)
            let facts = try #require(VerifiedFacts.load(forFolder: next.lastPathComponent, in: lab.clientDirectory))
            #expect(facts.manifestHash == row["manifestHash"] as String)
            #expect(facts.files.count == 24)
            // Each file's hash in the facts is the one the record's manifest lists (a delta
            // vouches with it, without parsing the manifest).
            let listed = try SignedManifest.parse(Data((row["manifest"] as String).utf8)).body.filesByPath
            #expect(facts.files.mapValues(\.sha256) == listed.mapValues(\.sha256), "\(version)")
        }
        #expect(!FileManager.default.fileExists(atPath: v1.path))
        // Swept with the index of the folder it described.
        #expect(!FileManager.default.fileExists(atPath: VerifiedFacts.file(forFolder: v1.lastPathComponent, in: lab.clientDirectory).path))
        await lab.stopServer()
    }

    @Test("a reused file changed in place (same size, modification time put back) is hashed and refused; the served revision untouched")
    func changedInPlace() async throws {
        let lab = try await Self.signedDeck()
        let served = try Self.servedFolder(lab)
        let file = served.appendingPathComponent("slides/s12.html")
        let original = try Data(contentsOf: file)
        var before = stat()
        #expect(stat(file.path, &before) == 0)
        let descriptor = open(file.path, O_WRONLY)
        #expect(descriptor >= 0)
        let written = "XYZ".withCString { pwrite(descriptor, $0, 3, 60) }
        #expect(written == 3)
        var times = [before.st_atim, before.st_mtim]
        #expect(futimens(descriptor, &times) == 0)
        close(descriptor)
        var after = stat()
        #expect(stat(file.path, &after) == 0)
        #expect(after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
        #expect(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)

        try await Self.publishSigned(lab, version: "v2")
        HashCounter.watch(lab.clientDirectory.root)
        let second = try await DeltaSyncTests.sync(lab)
        // Slide 7 (fetched) and slide 12 (its facts no longer hold) were read.
        #expect(HashCounter.count(under: lab.clientDirectory.root) == 2)
        let failure = try #require(second.report.failed.first)
        #expect(failure.id == 3)
        #expect("\(failure.error)".contains("'slides/s12.html' differs"), "\(failure.error)")
        #expect(second.report.installed.isEmpty)
        #expect(try Self.servedFolder(lab) == served)
        #expect(try lab.trustRow(3)?["presentationRevision"] as Int? == 1)
        #expect(try String(contentsOf: served.appendingPathComponent("slides/s07.html"), encoding: .utf8).contains("Slide 7 v1"))
        #expect(try Data(contentsOf: file) != original, "the served file is left as it was found")
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: lab.clientDirectory.staging.path)) ?? []
        #expect(staging.isEmpty, "\(staging)")
        await lab.stopServer()
    }

    @Test(
        "a delta whose result differs from the manifest is refused, the served revision untouched: a vouched reused file and a fetched one"
    )
    func resultDiffers() async throws {
        let lab = try await Self.signedDeck()
        let served = try Self.servedFolder(lab)
        let manifest = try await Self.publishSigned(lab, version: "v2")
        let original = try Data(contentsOf: manifest)

        // The signed manifest says slide 12 (reused, vouched by the facts, not read) is other bytes.
        _ = try lab.resign(manifest) { body in
            let index = body.files.firstIndex { $0.path == "slides/s12.html" }!
            body.files[index].sha256 = String(repeating: "0", count: 64)
        }
        HashCounter.watch(lab.clientDirectory.root)
        let second = try await DeltaSyncTests.sync(lab)
        #expect(HashCounter.count(under: lab.clientDirectory.root) == 1)
        let failure = try #require(second.report.failed.first)
        #expect("\(failure.error)".contains("'slides/s12.html' differs"), "\(failure.error)")
        #expect(try Self.servedFolder(lab) == served)
        #expect(try lab.trustRow(3)?["presentationRevision"] as Int? == 1)

        // Then the fetched slide 7 is other bytes than signed.
        try original.write(to: manifest)
        _ = try lab.resign(manifest) { body in
            let index = body.files.firstIndex { $0.path == "slides/s07.html" }!
            body.files[index].sha256 = String(repeating: "0", count: 64)
        }
        let third = try await DeltaSyncTests.sync(lab)
        let refused = try #require(third.report.failed.first)
        #expect("\(refused.error)".contains("'slides/s07.html' differs"), "\(refused.error)")
        #expect(third.report.installed.isEmpty)
        #expect(try Self.servedFolder(lab) == served)
        #expect(try String(contentsOf: served.appendingPathComponent("slides/s07.html"), encoding: .utf8).contains("Slide 7 v1"))
        await lab.stopServer()
    }

    /// Publishes `version` signed and syncs it, expecting one delta update that hashed all 24 files
    /// of the deck and left it equal to the server's.
    private static func expectDeltaHashingEveryFile(
        _ lab: SyncLab, version: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await publishSigned(lab, version: version)
        HashCounter.watch(lab.clientDirectory.root)
        let update = try await DeltaSyncTests.sync(lab)
        #expect(update.report.failed.isEmpty, "\(update.report.failed)", sourceLocation: sourceLocation)
        #expect(update.report.deltaUpdates == 1, sourceLocation: sourceLocation)
        #expect(HashCounter.count(under: lab.clientDirectory.root) == 24, sourceLocation: sourceLocation)
        try DeltaSyncTests.expectSameFiles(lab, id: 3)
    }

    @Test("a missing or damaged facts file is no error: the delta hashes every file and installs")
    func missingOrDamagedFacts() async throws {
        let lab = try await Self.signedDeck()
        let v1 = try Self.servedFolder(lab)
        let factsFile = VerifiedFacts.file(forFolder: v1.lastPathComponent, in: lab.clientDirectory)
        try Data("{\"manifestHash\": 1, \"files\": [".utf8).write(to: factsFile)
        try await Self.expectDeltaHashingEveryFile(lab, version: "v2")

        // Missing: the same.
        let v2 = try Self.servedFolder(lab)
        try FileManager.default.removeItem(at: VerifiedFacts.file(forFolder: v2.lastPathComponent, in: lab.clientDirectory))
        try await Self.expectDeltaHashingEveryFile(lab, version: "v3")
        #expect(try lab.trustRow(3)?["signed"] as Int? == 1)
        await lab.stopServer()
    }
}
