import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// A slide the client cannot be placed in is served as it is, and the author hears why: in the
/// log of `storybridge serve` and in the inspector's feed.
@Suite("Slides the client cannot be placed in")
struct ClientPlacementWarningTests {
    /// A presentation whose `wide.html` is UTF-16 (little-endian, with its byte-order mark).
    static func folderWithUTF16Slide() throws -> (folder: URL, slide: Data) {
        let folder = try makePresentationFolder(["index.html": "<!DOCTYPE html><title>start</title>"])
        let text = "<!DOCTYPE html><html><head><title>wide</title></head><body>UTF-16</body></html>"
        let slide = Data([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        try slide.write(to: folder.appendingPathComponent("wide.html"))
        return (folder, slide)
    }

    @Test("the slide is served unchanged and the inspector's feed holds a warning naming it")
    func feedWarning() async throws {
        let (folder, slide) = try Self.folderWithUTF16Slide()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withHost(folders: [folder]) { host in
            let served = try await httpGet(host.slideURL(slide: "wide.html"))
            #expect(served.status == 200)
            #expect(served.body == slide)
            let warnings = host.runtime.feed.recentEntries.filter { $0["type"] == "warning" }
            #expect(warnings.count == 1)
            #expect(warnings.first?["presentation"] == 1)
            #expect(warnings.first?["slide"] == "wide.html")
            #expect(warnings.first?["message"]?.stringValue?.contains("UTF-16 (byte-order mark FF FE)") == true)
            // A slide the client fits into brings no warning.
            _ = try await httpGet(host.slideURL(slide: "index.html"))
            #expect(host.runtime.feed.recentEntries.filter { $0["type"] == "warning" }.count == 1)
        }
    }

    @Test("storybridge serve logs a warning line naming the slide and the reason")
    func logWarning() async throws {
        let (folder, _) = try Self.folderWithUTF16Slide()
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try await ServeProcess.start([folder.path, "--port", "0", "--no-watch", "--log-level", "warning"])
        _ = try await httpGet(serve.baseURL + "/p/1/wide.html")
        try await waitUntil { serve.errors.contains("slide served without the client script") }
        let line = serve.errors.split(separator: "\n").first { $0.contains("slide served without the client script") } ?? ""
        #expect(line.contains("wide.html"))
        #expect(line.contains("UTF-16"))
        #expect(line.lowercased().contains("warning"))
        #expect(await serve.interrupt() == 0)
    }
}
