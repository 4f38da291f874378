import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Two slides that load the same script and style sheet.
private func sharingPresentation() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-versioned-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("js"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("css"), withIntermediateDirectories: true)
    try "window.shared = 'one';".write(to: root.appendingPathComponent("js/shared.js"), atomically: true, encoding: .utf8)
    try "body { margin: 0; }".write(to: root.appendingPathComponent("css/shared.css"), atomically: true, encoding: .utf8)
    for name in ["index.html", "second.html"] {
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>\(name)</title>
        <link rel="stylesheet" href="css/shared.css"><script src="js/shared.js"></script></head><body>\(name)</body></html>
        """.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return root
}

@Suite("A slide's scripts and style sheets kept by the browser from slide to slide, in headless Chromium", .serialized)
struct VersionedFilesBrowserTests {
    /// `{name: transferSize}` of the page's script and style sheet (0: taken from the browser's
    /// cache without asking the host).
    private static let transfers = """
        (function () {
          var sizes = {};
          performance.getEntriesByType('resource').forEach(function (r) {
            var name = r.name.replace(/^.*\\/(js|css)\\/([^?]*).*$/, '$2');
            if (name === 'shared.js' || name === 'shared.css') { sizes[name] = r.transferSize; }
          });
          return sizes;
        })()
        """

    @Test("the next slide takes them from the cache without asking; a changed file is fetched anew")
    func keptUntilChanged() async throws {
        let folder = try sharingPresentation()
        try await withBrowser(folders: [folder]) { host, page in
            try await page.openSlide(on: host)
            #expect(try await page.evaluate("window.shared") == "one")
            let first = try await page.evaluate(Self.transfers)
            #expect((first["shared.js"]?.doubleValue ?? 0) > 0)
            try await page.navigate(to: host.slideURL(slide: "second.html"))
            try await page.waitForSlide("second.html")
            #expect(try await page.evaluate(Self.transfers) == ["shared.js": 0, "shared.css": 0])
            #expect(try await page.evaluate("window.shared") == "one")
            // Changed on disk (a sync, a rollback, an edit): the slides link its new version.
            try "window.shared = 'two, changed';".write(
                to: folder.appendingPathComponent("js/shared.js"), atomically: true, encoding: .utf8)
            try await page.navigate(to: host.slideURL(slide: "index.html"))
            try await page.waitForSlide("index.html")
            #expect(try await page.evaluate("window.shared") == "two, changed")
            #expect((try await page.evaluate(Self.transfers)["shared.js"]?.doubleValue ?? 0) > 0)
        }
    }
}
