import Crypto
import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeSync

#if canImport(Glibc)
    import Glibc
#endif

/// A delta's changed files hashed as they are unpacked and vouched for when placed still as
/// written (docs/design/TRUST.md 2.3.1), with a real zip and real files.
@Suite("Delta updates: changed files hashed while unpacked")
struct PlacedAsWrittenTests {
    /// A folder of its own with a zip of three files (two deflated, one stored) in it.
    func unpacked() throws -> (folder: URL, zip: URL, changed: URL, result: PackageExtractor.Result) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-written-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let zip = folder.appendingPathComponent("changes.zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("slides/s07.html", text: String(repeating: "slide seven ", count: 4000))
        var noise = SeededBytes(seed: 7)
        try writer.add("slides/s07/photo.jpg", data: noise.bytes(400_000), compress: false)
        try writer.add("empty.txt", text: "")
        try writer.close()
        let changed = folder.appendingPathComponent("changed")
        let result = try PackageExtractor().extract(zip: zip, to: changed, requiresStartSlide: false, hashing: true)
        return (folder, zip, changed, result)
    }

    @Test("each written file has the SHA-256 of its bytes and its facts after writing; without hashing, none")
    func hashesAsWritten() throws {
        let (folder, zip, changed, result) = try unpacked()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(result.files == 3)
        #expect(Set(result.hashed.keys) == ["slides/s07.html", "slides/s07/photo.jpg", "empty.txt"])
        for (path, written) in result.hashed {
            let file = changed.appendingPathComponent(path)
            let bytes = try Data(contentsOf: file)
            #expect(written.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(), "\(path)")
            var status = stat()
            #expect(lstat(file.path, &status) == 0)
            #expect(written.facts == FileFacts(status), "\(path)")
        }
        let plain = try PackageExtractor().extract(zip: zip, to: folder.appendingPathComponent("plain"), requiresStartSlide: false)
        #expect(plain.hashed.isEmpty)
    }

    @Test("a file placed as written is vouched with its facts after the move; one written to after its unpacking is not")
    func movedInAsWritten() throws {
        let (folder, zip, changed, result) = try unpacked()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Written to after the unpacking: same size, its modification time put back; the change
        // time still moves (the file system's clock may tick coarsely, every few milliseconds:
        // the write comes a tick later than the unpacking).
        usleep(20_000)
        let touched = changed.appendingPathComponent("slides/s07.html")
        var before = stat()
        #expect(lstat(touched.path, &before) == 0)
        let descriptor = open(touched.path, O_WRONLY)
        #expect(descriptor >= 0)
        #expect("XYZ".withCString { pwrite(descriptor, $0, 3, 10) } == 3)
        var times = [before.st_atim, before.st_mtim]
        #expect(futimens(descriptor, &times) == 0)
        close(descriptor)

        let destination = folder.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        let entries = try ZipDirectory.read(file: zip).entries
        let vouched = try DeltaAssembly.moveIn(entries, from: changed, to: destination, written: result.hashed)
        #expect(Set(vouched.keys) == ["slides/s07/photo.jpg", "empty.txt"])
        for (path, vouch) in vouched {
            var status = stat()
            #expect(lstat(destination.appendingPathComponent(path).path, &status) == 0)
            #expect(vouch.facts == FileFacts(status), "\(path): the facts after the move")
            #expect(vouch.sha256 == result.hashed[path]?.sha256)
        }
        // Everything was moved in, the touched file too (the tree's check reads it).
        #expect(FileManager.default.fileExists(atPath: destination.appendingPathComponent("slides/s07.html").path))
        #expect(!FileManager.default.fileExists(atPath: touched.path))
    }

    @Test("the tree's check takes a file placed as written unread, and reads one whose facts moved since")
    func checkTakesAsWritten() throws {
        let (folder, zip, changed, result) = try unpacked()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        let entries = try ZipDirectory.read(file: zip).entries
        let asWritten = try DeltaAssembly.moveIn(entries, from: changed, to: destination, written: result.hashed)
        #expect(asWritten.count == 3)
        // One file changed after the move: its facts no longer hold, so it is read (and hashed);
        // a clock tick later than the move, so that its change time moves.
        usleep(20_000)
        let photo = destination.appendingPathComponent("slides/s07/photo.jpg")
        let handle = try FileHandle(forWritingTo: photo)
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data("changed".utf8))
        try handle.close()
        let tree = AssembledTree(linked: [:], placed: entries.map(\.name))
        HashCounter.watch(folder)
        let verify = TrustGate.verifier(
            .unsigned, presentationId: 1, presentationRevision: 1, packageId: 1, packageRevision: 1, assembled: tree)
        let record = try verify(destination, asWritten)
        #expect(HashCounter.count(under: folder) == 1)
        let recorded = record.body.filesByPath
        #expect(recorded["slides/s07.html"]?.sha256 == result.hashed["slides/s07.html"]?.sha256)
        let photoBytes = try Data(contentsOf: photo)
        #expect(recorded["slides/s07/photo.jpg"]?.sha256 == SHA256.hash(data: photoBytes).map { String(format: "%02x", $0) }.joined())
        #expect(recorded["slides/s07/photo.jpg"]?.sha256 != result.hashed["slides/s07/photo.jpg"]?.sha256)
    }

    @Test("a full download's check reads none of the files unpacked with their hashes, and reads one written to since")
    func fullDownloadUnread() throws {
        let (folder, _, staging, result) = try unpacked()
        defer { try? FileManager.default.removeItem(at: folder) }
        let verify = TrustGate.verifier(.unsigned, presentationId: 1, presentationRevision: 1, packageId: 1, packageRevision: 1)
        HashCounter.watch(folder)
        let record = try verify(staging, result.hashed)
        #expect(HashCounter.count(under: folder) == 0)
        #expect(record.body.filesByPath.mapValues(\.sha256) == result.hashed.mapValues(\.sha256))
        // Written to after the unpacking (a clock tick later, so that its change time moves): read.
        usleep(20_000)
        let slide = staging.appendingPathComponent("slides/s07.html")
        try Data("another slide".utf8).write(to: slide)
        let again = try verify(staging, result.hashed)
        #expect(HashCounter.count(under: folder) == 1)
        #expect(
            again.body.filesByPath["slides/s07.html"]?.sha256
                == SHA256.hash(data: Data("another slide".utf8)).map { String(format: "%02x", $0) }.joined())
    }
}
