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

    @Test(
        "SIGKILL at several moments of a delta sync: the served folder is always one whole revision, and the next sync completes by delta",
        arguments: [150, 300, 450, 600, 800])
    func killedDuringDelta(afterMilliseconds delay: Int) async throws {
        let lab = try SyncLab()
        try DeltaSyncTests.publishDeck(lab, id: 3, version: "v1")
        try await lab.startServer()
        try await lab.loginAsService()
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let old = try Self.files(in: try #require(try lab.clientLibrary().entry(id: 3)).presentation.root)
        try DeltaSyncTests.publishDeck(lab, id: 3, version: "v2")
        #expect(try await lab.cli(["sync"]).status == 0)

        let child = try lab.spawn(["sync", "--content"])
        try await Task.sleep(for: .milliseconds(delay))
        kill(child.process.processIdentifier, SIGKILL)
        _ = await SyncLab.finish(child)
        let new = try Self.files(in: try #require(try lab.serverLibrary.entry(id: 3)).presentation.root)
        let served = try Self.files(in: try #require(try lab.clientLibrary().entry(id: 3)).presentation.root)
        #expect(served == old || served == new, "the served folder mixes revisions")

        let next = try await lab.cli(["sync", "--content"])
        #expect(next.status == 0, "\(next.errors)")
        #expect(try Self.files(in: try #require(try lab.clientLibrary().entry(id: 3)).presentation.root) == new)
        if served == old { #expect(next.errors.contains("delta update"), "\(next.errors)") }
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: lab.clientDirectory.staging.path)) ?? []
        #expect(staging.isEmpty, "\(staging)")
        await lab.stopServer()
    }
}
