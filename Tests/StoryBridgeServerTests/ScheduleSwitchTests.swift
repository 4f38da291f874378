import Foundation
import Logging
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import Synchronization
import Testing

/// A schedule switching a served host's viewers at a window's edge (docs/design/FLEET.md §10.3),
/// on a ``ManualHostClock`` moved across the edge: a real server, a real viewer connection.
@Suite("Schedules switching viewers", .serialized)
struct ScheduleSwitchTests {
    @Test(
        "at a window's edge the viewer on the default deck is sent to the scheduled one and / leads there; a deck not installed switches nothing"
    )
    func switchesAtTheEdge() async throws {
        let folder = try scratchFolder("sb-schedule")
        defer { try? FileManager.default.removeItem(at: folder) }
        let second = folder.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        try "<!DOCTYPE html><html><head><title>Second</title></head><body>second</body></html>".write(
            to: second.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        // Wednesday 2 December 2026, 08:59 in Berlin (07:59 UTC); the window opens at 09:00.
        let clock = ManualHostClock(start: try #require(ISO8601DateFormatter().date(from: "2026-12-02T07:59:00Z")))
        let schedule = try DeckSchedule.parse(
            try JSONValue.parse(
                """
                {"timeZone": "Europe/Berlin", "default": {"presentation": 1},
                 "weekly": [{"days": ["wed"], "from": "09:00", "to": "10:00", "presentation": 2},
                            {"days": ["wed"], "from": "10:00", "to": "11:00", "presentation": 9}]}
                """))
        let switcher = Mutex<ScheduleSwitcher?>(nil)
        var configuration = ServerConfiguration(port: 0)
        configuration.scheduled = { switcher.withLock { $0 }?.nowPlaying }
        let host = try await TestHost.start(presentationFolders: [demoFolder, second], server: configuration, clock: clock)
        try await host.use { host in
            var logger = Logger(label: "test.schedule")
            logger.logLevel = .critical
            let scheduled = ScheduleSwitcher(schedule: schedule, host: host.runtime, logger: logger)
            switcher.withLock { $0 = scheduled }
            let viewer = try await host.connectViewer(presentationId: 1, slide: "index.html")
            // Its page is entered once the host has greeted it.
            #expect(await viewer.nextEvent(named: "hello") != nil)
            let running = Task { await scheduled.run() }
            defer { running.cancel() }
            // Before the edge: the default plays; the viewer already shows it and is not touched.
            try await waitUntil { scheduled.nowPlaying?.presentation == 1 }
            #expect(try await httpGet(host.baseURL + "/").headers["location"] == "/p/1/index.html")
            // Across the edge: the viewer is sent to deck 2's entry slide, and / leads there.
            clock.advance(by: .seconds(60))
            let navigate = try #require(await viewer.nextEvent(named: "navigate", timeout: .seconds(10)))
            #expect(navigate.data["presentation"] == 2 && navigate.data["slide"] == "index.html")
            #expect(navigate.data["url"] == "/p/2/index.html")
            #expect(scheduled.nowPlaying?.presentation == 2)
            #expect(try await httpGet(host.baseURL + "/").headers["location"] == "/p/2/index.html")
            // 10:00: deck 9 is not installed: nothing switches and / falls back to the host's default.
            clock.advance(by: .seconds(3600))
            try await waitUntil { scheduled.nowPlaying == nil }
            #expect(await viewer.nextEvent(named: "navigate", timeout: .milliseconds(300)) == nil)
            await viewer.close()
        }
    }
}
