import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Live reload through storybridge serve")
struct LiveReloadServeTests {
    @Test("serve of a folder reloads the viewers of an edited presentation, rides out a broken save, and re-reads the map")
    func serveReloads() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-watch-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: demoFolder, to: folder)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sb-watch-data-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: data)
        }
        let serve = try await ServeProcess.start([folder.path, "--port", "0", "--data-dir", data.path, "--log-level", "info"])
        #expect(serve.output.contains("Live reload: on"))
        let viewer = try await serve.connectViewer(slide: "index.html", viewerId: "watched")

        // An edited slide: the viewer is told to reload, naming the file.
        let index = folder.appendingPathComponent("index.html")
        let original = try String(contentsOf: index, encoding: .utf8)
        try original.replacingOccurrences(of: "</body>", with: "<!-- edited --></body>").write(to: index, atomically: true, encoding: .utf8)
        let reload = try #require(await viewer.nextEvent(named: "reload", timeout: .seconds(20)))
        #expect(reload.data["files"]?.arrayValue?.contains("index.html") == true)
        let page = try await httpGet(serve.baseURL + "/p/1/index.html")
        #expect(String(decoding: page.body, as: UTF8.self).contains("<!-- edited -->"))

        // A save that leaves the presentation unreadable (index.html gone) keeps the last good
        // version served, warns once, and reloads nobody.
        try FileManager.default.removeItem(at: index)
        try await waitUntil { serve.errors.contains("live reload: cannot re-read the presentation") }
        #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(1)) == nil)
        let current = try await viewer.request("getCurrentSlideName")
        #expect(current.data["slide"] == "index.html", "\(current)")

        // Once it is back, with a new slide on its map, the viewers reload and the map has it.
        try "<!DOCTYPE html><html><head><title>Extra</title></head><body>extra</body></html>"
            .write(to: folder.appendingPathComponent("extra.html"), atomically: true, encoding: .utf8)
        try original.replacingOccurrences(
            of: "content=\"products.html,legacy.html\"", with: "content=\"products.html,legacy.html,extra.html\""
        )
        .write(to: index, atomically: true, encoding: .utf8)
        let second = try #require(await viewer.nextEvent(named: "reload", timeout: .seconds(20)))
        #expect(second.data["files"]?.arrayValue?.contains("extra.html") == true)
        let map = try await viewer.request("getMap")
        #expect(map.data["index.html"]?.arrayValue?.contains("extra.html") == true)

        // A viewer whose slide is deleted is sent to the start slide instead of reloading a 404.
        let onExtra = try await serve.connectViewer(slide: "extra.html", viewerId: "on-extra")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("extra.html"))
        let moved = try #require(await onExtra.nextEvent(named: "navigate", timeout: .seconds(20)))
        #expect(moved.data["url"] == "/p/1/index.html")
        #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(20)) != nil)
        await onExtra.close()
        await viewer.close()
        #expect(await serve.interrupt() == 0)
        #expect(serve.errors.contains("live reload:"))
    }

    @Test("serve --no-watch does not reload")
    func noWatch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-nowatch-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: demoFolder, to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try await ServeProcess.start([folder.path, "--port", "0", "--no-watch", "--log-level", "warning"])
        #expect(serve.output.contains("Live reload: off"))
        let viewer = try await serve.connectViewer(slide: "index.html")
        try "changed".write(to: folder.appendingPathComponent("css/extra.css"), atomically: true, encoding: .utf8)
        #expect(await viewer.nextEvent(named: "reload", timeout: .seconds(2)) == nil)
        await viewer.close()
        #expect(await serve.interrupt() == 0)
    }
}

/// Polls `condition` every 50 ms until it holds; fails the test after `timeout`.
func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) async throws {
    let until = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < until else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}
