import Foundation
import StoryBridge
import StoryBridgeTesting

/// The decks ``DialectBenchmark`` serves, each in a folder of its own under a scratch folder.
enum DialectDecks {
    /// A StoryCLM deck of the same two pages as the OCE fixture's first sequence (same markup,
    /// style sheet and script, so a `go` and a `gotoSlide` differ only by the dialect's path), and
    /// `calls.html`, which loads storybridge's storyclm.js (`js/storyclm.js`, written once the host
    /// runs).
    static func storyCLMTwin(in scratch: URL) throws -> URL {
        let root = scratch.appendingPathComponent("storyclm")
        for folder in ["css", "js"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data(OceDeliveryFixture.page("index.html").utf8).write(to: root.appendingPathComponent("index.html"))
        try Data(OceDeliveryFixture.page("overview.html").utf8).write(to: root.appendingPathComponent("overview.html"))
        try Data("body { color: rgb(4, 5, 6); }\n".utf8).write(to: root.appendingPathComponent("css/deck.css"))
        try Data(OceDeliveryFixture.playerLibrary.utf8).write(to: root.appendingPathComponent("js/player.js"))
        let calls = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>in-page calls</title>
            <script src="js/storyclm.js"></script></head><body><h1>in-page calls</h1></body></html>

            """
        try Data(calls.utf8).write(to: root.appendingPathComponent("calls.html"))
        return root
    }

    /// The Veeva fixture delivery (``VeevaDeliveryFixture``), unpacked as `serve` unpacks a folder of zips.
    static func veeva(in scratch: URL) throws -> URL {
        try unpacked("veeva", in: scratch) { try VeevaDeliveryFixture.writeZips(in: $0) }
    }

    /// The OCE fixture delivery (``OceDeliveryFixture``), unpacked the same way.
    static func oce(in scratch: URL) throws -> URL {
        try unpacked("oce", in: scratch) { try OceDeliveryFixture.writeZips(in: $0) }
    }

    /// The folder of zips `write` makes, unpacked into `scratch/name`.
    private static func unpacked(_ name: String, in scratch: URL, write: (URL) throws -> Void) throws -> URL {
        let zips = scratch.appendingPathComponent("\(name)-zips")
        try write(zips)
        let deck = scratch.appendingPathComponent(name)
        try DeliveryUnpacking.unpack(folder: zips, to: deck)
        return deck
    }
}
