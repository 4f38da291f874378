import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// `storybridge kiosk --headless` beside a real `serve`, with real Chromium (docs/design/FLEET.md
/// §9.1, §9.2).
@Suite("storybridge kiosk with a real serve", .serialized, .enabled(if: KioskLab.hasChromium, "Chromium is not installed"))
struct KioskProcessTests {
    @Test(
        "the kiosk waits for serve, opens its start page; Chromium killed is started again on it; SIGTERM closes Chromium and exits 0"
    )
    func supervised() async throws {
        let lab = try KioskLab()
        defer { lab.remove() }
        let kiosk = try await lab.startKiosk()
        defer { kiosk.kill() }
        // No serve yet: the kiosk waits for one.
        let deadline = ContinuousClock.now + .seconds(30)
        while !lab.log.contains("waiting for serve"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(lab.log.contains("waiting for serve"), "\(lab.log)")
        let serve = try await lab.startServe()
        defer { serve.kill() }
        let base = try #require(KioskRunFile.read(in: lab.directory)).url
        let first = try await lab.nextBrowser(after: [])
        try await lab.waitForPage(under: base)
        // Chromium dies: a new one opens the start page again.
        #expect(kill(first, SIGKILL) == 0)
        let second = try await lab.nextBrowser(after: [first])
        try await lab.waitForPage(under: base)
        #expect(lab.log.contains("browserRestarts=1"), "\(lab.log)")
        kiosk.terminate()
        #expect(await kiosk.exit() == 0, "\(lab.log)")
        #expect(kill(second, 0) != 0, "Chromium outlived the kiosk")
        let profiles = (try? FileManager.default.contentsOfDirectory(atPath: lab.data.appendingPathComponent("kiosk").path)) ?? []
        #expect(profiles.isEmpty, "\(profiles)")
        serve.terminate()
        #expect(await serve.exit() == 0)
    }

    @Test("without a display and without --headless the kiosk stops at once with a usage error that says what to do")
    func noDisplay() async throws {
        let lab = try KioskLab()
        defer { lab.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        let kiosk = try await lab.startKiosk([], environment: environment)
        #expect(await kiosk.exit() == 64)
        #expect(lab.log.contains("no X display: give --display, set DISPLAY, or --headless"), "\(lab.log)")
    }
}
