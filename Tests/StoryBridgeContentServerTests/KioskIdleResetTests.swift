import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import StoryIoTCollector
import Testing

/// `storybridge kiosk --idle-reset` beside a real `serve` that uploads to a real collector, with
/// real Chromium (docs/design/FLEET.md §9.4): input through DevTools, the session's end in serve's
/// database and in the upload, the fresh viewer on the start slide.
@Suite("storybridge kiosk: idle reset with a real serve", .serialized, .enabled(if: KioskLab.hasChromium, "Chromium is not installed"))
struct KioskIdleResetTests {
    /// The kiosk's idle time.
    static let idleSeconds = 2
    /// The log line of a reset.
    static let resetLine = "back to the start page with a fresh viewer"

    @Test(
        "headless: an untouched screen is left alone; a click then 2 s idle → the session saved with endedBy idle (database and upload), a new viewer on the start slide; no second reset without input"
    )
    func headless() async throws {
        try await idleReset(kiosk: ["--headless"])
    }

    @Test(
        "the same in kiosk mode on a real X display (Xvfb)",
        .enabled(if: XvfbDisplay.isInstalled, "Xvfb is not installed (apt-get install xvfb)"))
    func onXvfb() async throws {
        let display = try await XvfbDisplay.start(width: 1024, height: 768)
        defer { display.stop() }
        try await idleReset(kiosk: ["--display", display.name])
    }

    private func idleReset(kiosk kioskArguments: [String]) async throws {
        let lab = try KioskLab()
        defer { lab.remove() }
        var logger = Logger(label: "collector")
        logger.logLevel = .critical
        let received = try CollectorStore(file: lab.folder.appendingPathComponent("collector.sqlite"))
        let collector = try await StoryIoTCollector(port: 0, hub: "hub1", key: "key1", secret: "s3cr3t", store: received, logger: logger)
            .start()
        let serve = try await lab.startServe([
            "--upload-endpoint", "http://127.0.0.1:\(collector.port)", "--upload-hub", "hub1", "--upload-key", "key1",
            "--upload-secret", "s3cr3t", "--upload-interval", "0.2",
        ])
        defer { serve.kill() }
        let kiosk = try await lab.startKiosk(kioskArguments + ["--idle-reset", "\(Self.idleSeconds)s"])
        defer { kiosk.kill() }
        let base = try #require(KioskRunFile.read(in: lab.directory)).url

        // The first viewer, on the start slide; it moves on to another slide (not input: a
        // script, as a deck's own timer would).
        let start = try await lab.waitForViewer(under: base)
        let firstViewer = try #require(start.viewer)
        let otherSlide = start.url.replacingOccurrences(of: "index.html", with: "products.html")
        #expect(otherSlide != start.url, "the start slide is not index.html: \(start.url)")
        try await lab.evaluate("location.href = \(JSONValue.string(otherSlide).jsonString())")
        _ = try await lab.waitForViewer(under: base) { $0.url == otherSlide && $0.viewer == firstViewer }

        // Nobody touched the screen: twice the idle time later it is as it was.
        try await Task.sleep(for: .seconds(2 * Self.idleSeconds))
        #expect(await lab.shownPages() == [.init(url: otherSlide, viewer: firstViewer)])
        #expect(!lab.log.contains(Self.resetLine), "\(lab.log)")

        // A touch, then nothing: back to the start slide with a fresh viewer, the old tab gone.
        try await lab.click(x: 200, y: 200)
        let fresh = try await lab.waitForViewer(under: base) { $0.viewer != firstViewer }
        #expect(fresh.url == start.url)
        let secondViewer = try #require(fresh.viewer)
        #expect(lab.log.components(separatedBy: Self.resetLine).count == 2, "\(lab.log)")
        #expect(lab.log.contains("viewer=\(firstViewer)"), "\(lab.log)")
        // serve answered idleDone: the kiosk did not go on for want of it.
        #expect(!lab.log.contains("did not confirm"), "\(lab.log)")

        // serve saved the old viewer's session, ended by idle, and uploaded it; the new viewer
        // has a session of its own.
        let database = try StoryBridgeDatabase(file: lab.directory.database)
        let sessions = try await database.read { db in try SessionRecord.fetchAll(db) }
        let ended = try #require(sessions.first { $0.viewerId == firstViewer }, "\(sessions)\nkiosk:\n\(lab.log)\nserve:\n\(lab.serveLog)")
        #expect(ended.state == .saved && ended.endedBy == .idle, "\(sessions)\nkiosk:\n\(lab.log)\nserve:\n\(lab.serveLog)")
        let deadline = ContinuousClock.now + .seconds(30)
        var uploaded: [String] = []
        while uploaded.isEmpty, ContinuousClock.now < deadline {
            // The session's upload bodies: the one that says how it ended says idle.
            uploaded = try received.messages().filter { $0.entityId == ended.id }.flatMap { message in
                Self.values(of: "endedBy", in: (try? JSONValue.parse(message.body)) ?? .null)
            }
            if uploaded.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        let bodies = try received.messages().filter { $0.entityId == ended.id }.map(\.body)
        #expect(uploaded == ["idle"], "the session's upload: \(bodies)")
        var current: SessionRecord?
        while current == nil, ContinuousClock.now < deadline {
            current = try await database.read { db in try SessionRecord.fetchAll(db) }.first { $0.viewerId == secondViewer }
            if current == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(current?.state == .inProgress, "\(String(describing: current))")

        // Nobody touched the fresh screen: twice the idle time later it is still the same viewer.
        try await Task.sleep(for: .seconds(2 * Self.idleSeconds))
        #expect(await lab.shownPages() == [.init(url: start.url, viewer: secondViewer)])
        #expect(lab.log.components(separatedBy: Self.resetLine).count == 2, "\(lab.log)")

        kiosk.terminate()
        #expect(await kiosk.exit() == 0, "\(lab.log)")
        serve.terminate()
        #expect(await serve.exit() == 0)
        await collector.stop()
    }

    /// Every string value of member `key` anywhere in `json`.
    private static func values(of key: String, in json: JSONValue) -> [String] {
        switch json {
        case .object(let members):
            return members.flatMap { member in
                (member.key == key ? [member.value.stringValue].compactMap { $0 } : []) + values(of: key, in: member.value)
            }
        case .array(let items): return items.flatMap { values(of: key, in: $0) }
        default: return []
        }
    }
}
