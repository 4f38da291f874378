import Foundation
import Logging

@testable import StoryBridge

/// A presentation folder written by the test into a fresh temporary directory.
struct TemporaryPresentation {
    let root: URL

    /// `slides` maps file names to the `clm` links, swipe targets are derived from order.
    init(slides: [String: String], extraFiles: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-pres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, html) in slides {
            try html.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        for (path, contents) in extraFiles {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file, atomically: true, encoding: .utf8)
        }
    }

    static func slide(links: [String] = [], next: String? = nil, previous: String? = nil, title: String = "") -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8">
        <meta name="clm-swipe-next" content="\(next ?? "")">
        <meta name="clm-swipe-previous" content="\(previous ?? "")">
        <meta name="clm" content="\(links.joined(separator: ","))">
        <title>\(title)</title></head><body><h1>\(title)</h1></body></html>
        """
    }

    /// Three slides: index → a → b.
    static func threeSlides() throws -> TemporaryPresentation {
        try TemporaryPresentation(slides: [
            "index.html": slide(links: ["a.html"], next: "a.html", title: "Start"),
            "a.html": slide(links: ["index.html", "b.html"], next: "b.html", previous: "index.html", title: "A"),
            "b.html": slide(links: ["a.html"], previous: "a.html", title: "B"),
        ])
    }

    func load(id: Int = 1) throws -> Presentation {
        try PresentationFolder.load(root, catalog: .init(id: id))
    }
}

func quietLogger() -> Logger {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return logger
}

/// A host over one presentation, and a viewer that shows its `slide`.
func makeHost(
    presentation: Presentation, slide: String = "index.html", identity: HostIdentity = HostIdentity(),
    deadline: Duration = .seconds(10)
) async -> (StoryBridgeHost, Viewer) {
    let host = StoryBridgeHost(
        library: PresentationLibrary([presentation]), database: try! temporaryDatabase(), identity: identity,
        defaultDeadline: deadline, logger: quietLogger())
    let viewer = await host.viewers.viewer(id: "viewer-1")
    await host.pageLoaded(viewer, presentationId: presentation.id, slide: slide, pageLoad: "load-1")
    return (host, viewer)
}

/// A database in a fresh temporary folder.
func temporaryDatabase() throws -> StoryBridgeDatabase {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-db-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return try StoryBridgeDatabase(file: folder.appendingPathComponent("test.sqlite"))
}

extension StoryBridgeDatabase {
    /// Holds the writer (GRDB's writer queue) until `release` is signalled, with a separate write
    /// made from a thread of its own: writes of the group commit queue behind it. Returns once the
    /// writer is held. The hold's transaction is rolled back: it commits nothing.
    func holdWriter(until release: DispatchSemaphore) {
        struct HoldEnded: Error {}
        let held = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            try? writeSeparately { _ in
                held.signal()
                release.wait()
                throw HoldEnded()
            }
        }
        held.wait()
    }
}
