import Foundation
import StoryBridgeTesting
import Testing

/// Serve children of the suite never share a database: test.sh's `XDG_DATA_HOME` is one folder
/// for every test of a target, and two children on it met each other's lock at start-up.
@Suite("Serve children's data folders")
struct ServeDataFolderTests {
    @Test("serve children started at once without --data-dir each get a database of their own, removed when they stop")
    func ownFolders() async throws {
        let deck = try makePresentationFolder(["index.html": "<!DOCTYPE html><title>own</title>"])
        defer { try? FileManager.default.removeItem(at: deck) }
        async let first = ServeProcess.start([deck.path, "--port", "0", "--no-watch", "--log-level", "error"])
        async let second = ServeProcess.start([deck.path, "--port", "0", "--no-watch", "--log-level", "error"])
        let children = try await [first, second]
        let folders = children.compactMap(\.ownDataFolder)
        #expect(folders.count == 2 && folders[0] != folders[1])
        for (child, folder) in zip(children, folders) {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("storybridge.sqlite").path))
            let viewer = try await child.connectViewer()
            #expect(try await viewer.request("setCustomEvent", data: ["key": "k", "value": "v"]).status == .success)
            await viewer.close()
            #expect(await child.interrupt() == 0)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }
    }

    @Test("a serve child's own --data-dir is kept as given")
    func givenFolderKept() throws {
        let given = ["x", "--data-dir", "/tmp/given"]
        #expect(withOwnDataFolder(given).arguments == given)
        #expect(withOwnDataFolder(given).added == nil)
        #expect(withOwnDataFolder(["x", "--data-dir=/tmp/given"]).added == nil)
        let added = withOwnDataFolder(["x"])
        let folder = try #require(added.added)
        #expect(added.arguments == ["x", "--data-dir", folder.path])
    }
}
