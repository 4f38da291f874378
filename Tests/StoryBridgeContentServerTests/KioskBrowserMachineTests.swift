import Foundation
import StoryBridgeScripts
import Testing

/// The decisions of `storybridge kiosk`'s browser supervisor and its launch arguments
/// (docs/design/FLEET.md §9.2).
@Suite("Kiosk browser: supervisor decisions and Chromium modes")
struct KioskBrowserMachineTests {
    @Test("restarts wait 1 s, doubling to 30 s; a browser that ran 5 minutes starts over at 1 s; the start URL is opened in each browser")
    func backoff() {
        var machine = KioskBrowserMachine()
        let t0 = ContinuousClock.now
        // serve's start comes before the browser is up: opened once it is.
        #expect(machine.startReceived("http://127.0.0.1:8080/").isEmpty)
        #expect(machine.browserStarted(at: t0) == [.open("http://127.0.0.1:8080/")])
        var waits: [Duration] = []
        var now = t0
        for _ in 0..<7 {
            now += .seconds(2)
            waits.append(machine.browserEnded(at: now))
            #expect(machine.browserStarted(at: now) == [.open("http://127.0.0.1:8080/")])
        }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(machine.restarts == 7)
        // Five minutes up earns the first delay again.
        now += .seconds(300)
        #expect(machine.browserEnded(at: now) == .seconds(1))
        #expect(machine.browserStarted(at: now) == [.open("http://127.0.0.1:8080/")])
        #expect(machine.browserEnded(at: now + .seconds(299)) == .seconds(2))
        // A new start URL while up is opened at once.
        #expect(machine.browserStarted(at: now) == [.open("http://127.0.0.1:8080/")])
        #expect(machine.startReceived("http://127.0.0.1:9090/") == [.open("http://127.0.0.1:9090/")])
    }

    @Test(
        "both modes share DevTools on loopback at port 0; kiosk mode is full screen on its display, sandboxed unless root; headless keeps today's list"
    )
    func modes() {
        let profile = URL(fileURLWithPath: "/tmp/p")
        let kiosk = ChromiumMode.kiosk(display: ":7", windowSize: .init(width: 1920, height: 1080))
        let asUser = kiosk.arguments(profile: profile, asRoot: false)
        for shared in ChromiumMode.sharedArguments { #expect(asUser.contains(shared)) }
        #expect(asUser.contains("--kiosk") && asUser.contains("--window-size=1920,1080") && !asUser.contains("--no-sandbox"))
        #expect(!asUser.contains("--headless") && !asUser.contains("--remote-allow-origins=*"))
        #expect(kiosk.arguments(profile: profile, asRoot: true).contains("--no-sandbox"))
        #expect(asUser.last == "--user-data-dir=/tmp/p")
        #expect(kiosk.environment(from: ["PATH": "/bin"]) == ["PATH": "/bin", "DISPLAY": ":7"])
        let headless = ChromiumMode.headless().arguments(profile: profile, asRoot: false)
        #expect(headless.contains("--headless") && headless.contains("--no-sandbox") && !headless.contains("--kiosk"))
        #expect(headless.contains("--remote-allow-origins=*"))
        #expect(
            ChromiumMode.headless(devToolsOrigin: ChromiumMode.ownOrigin).arguments(profile: profile, asRoot: false)
                .contains("--remote-allow-origins=ws://127.0.0.1"))
        #expect(asUser.contains("--remote-allow-origins=ws://127.0.0.1"))
        #expect(ChromiumMode.headless().environment(from: ["DISPLAY": ":0"]) == ["DISPLAY": ":0"])
        #expect(ChromiumMode.WindowSize(parsing: "1280x720") == .init(width: 1280, height: 720))
        for bad in ["1280", "x720", "12x720", "1280x720x1", "wide", "99999x100"] {
            #expect(ChromiumMode.WindowSize(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("a PNG's size is read from its header")
    func pngSize() {
        var header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        header += [0, 0, 5, 0, 0, 0, 2, 0xD0]
        #expect(KioskBrowser.pngSize(Data(header)).map { [$0.width, $0.height] } == [1280, 720])
        #expect(KioskBrowser.pngSize(Data("not a png at all, really".utf8)) == nil)
    }
}
