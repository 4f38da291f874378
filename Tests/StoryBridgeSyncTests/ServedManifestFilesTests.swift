import Foundation
import StoryBridge
import Testing

/// The test lab's reading of the content server's manifests folder: a test that edits a served
/// manifest must be handed the file the server serves, never the hidden temporary file the server
/// writes a manifest to before renaming it into place (`TrustFileIO.replace`), which is complete
/// and valid while it waits for its `fsync` (`VerifiedFactsTests/resultDiffers` failed once in CI
/// because it was handed one).
@Suite("Test lab: the manifests the server serves")
struct ServedManifestFilesTests {
    @Test("only <package>-r<revision>.json files are handed out, not a manifest's temporary file nor other files")
    func onlyServedFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("served-manifests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = Data(#"{"signed":{},"signatures":[]}"#.utf8)
        // A temporary file named as the server names it, left in place by a write still under way.
        let served = folder.appendingPathComponent("12-r3.json").path
        try TrustFileIO.replace(manifest, at: served)
        let temporary = folder.appendingPathComponent(".12-r4.json.1a2b3c4d.tmp")
        try manifest.write(to: temporary)
        try manifest.write(to: folder.appendingPathComponent("notes.txt"))
        try manifest.write(to: folder.appendingPathComponent("7-r1.json"))

        let files = SyncLab.servedManifestFiles(in: folder).map(\.lastPathComponent)
        #expect(files == ["12-r3.json", "7-r1.json"])
        // What `replace` leaves after its rename: no temporary file of its own.
        let hidden = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(hidden == [temporary.lastPathComponent])
    }
}
