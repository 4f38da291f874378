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
            // A second viewer on deck 1 whose page has gone (a browser restarting) at the edge.
            let away = UUID().uuidString
            let leaving = try await host.connectViewer(presentationId: 1, slide: "index.html", viewerId: away)
            #expect(await leaving.nextEvent(named: "hello") != nil)
            await leaving.close()
            try await waitUntilIdle(host, viewerId: away)
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
            // The viewer that had no connection at the edge is sent there when its next page connects.
            let back = try await host.connectViewer(presentationId: 1, slide: "index.html", viewerId: away)
            let late = try #require(await back.nextEvent(named: "navigate", timeout: .seconds(10)))
            #expect(late.data["presentation"] == 2 && late.data["url"] == "/p/2/index.html")
            await back.close()
            // 10:00: deck 9 is not installed: nothing switches and / falls back to the host's default.
            clock.advance(by: .seconds(3600))
            try await waitUntil { scheduled.nowPlaying == nil }
            #expect(await viewer.nextEvent(named: "navigate", timeout: .milliseconds(300)) == nil)
            await viewer.close()
        }
    }

    @Test("serve --test-start-time two seconds before a window's edge: a real process switches a connected viewer at the edge")
    func realProcessAtTheEdge() async throws {
        let folder = try scratchFolder("sb-schedule-serve")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let second = folder.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        try "<!DOCTYPE html><html><head><title>Second</title></head><body>second</body></html>".write(
            to: second.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        for (deck, id) in [(demoFolder, "1"), (second, "2")] {
            let install = try await runStorybridge(["install", try zipFolder(deck).path, "--id", id, "--data-dir", data])
            #expect(install.status == 0, "\(install.errors)")
        }
        let schedule = folder.appendingPathComponent("schedule.json")
        try """
        {"timeZone": "Europe/Berlin", "default": {"presentation": 1},
         "weekly": [{"days": ["wed"], "from": "09:00", "to": "10:00", "presentation": 2}]}
        """.write(to: schedule, atomically: true, encoding: .utf8)
        // Wednesday 2 December 2026, 08:59:52 in Berlin: the window opens 8 s after start (room
        // for the start-up and the viewer's connection on a busy machine).
        let serve = try await ServeProcess.start([
            "--data-dir", data, "--schedule", schedule.path, "--test-start-time", "2026-12-02T08:59:52+01:00", "--port", "0",
            "--no-watch", "--log-level", "info",
        ])
        let viewer = try await serve.connectViewer(slide: "index.html")
        #expect(await viewer.nextEvent(named: "hello") != nil)
        #expect(try await httpGet(serve.baseURL + "/").headers["location"] == "/p/1/index.html")
        let navigate = try #require(await viewer.nextEvent(named: "navigate", timeout: .seconds(30)))
        #expect(navigate.data["presentation"] == 2 && navigate.data["url"] == "/p/2/index.html")
        #expect(try await httpGet(serve.baseURL + "/").headers["location"] == "/p/2/index.html")
        await viewer.close()
        #expect(await serve.interrupt() == 0)
        #expect(serve.errors.contains("plays now"), "\(serve.errors)")
    }

    @Test("serve --test-start-time refuses a time without an offset, naming the form it wants")
    func badStartTime() async throws {
        let result = try await runStorybridge([
            "serve", demoFolder.path, "--test-start-time", "2026-12-02 08:59", "--port", "0",
        ])
        #expect(result.status != 0)
        #expect(result.errors.contains("--test-start-time 2026-12-02 08:59 is not an ISO 8601 time with an offset"), "\(result.errors)")
    }
}
