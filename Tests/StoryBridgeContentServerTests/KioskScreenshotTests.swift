import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The screenshot round trip with real processes (docs/design/FLEET.md §9.3): a content-server
/// hub, `serve --fleet` reporting to it, `storybridge kiosk` beside serve; the dashboard's POST
/// reaches the kiosk's browser and the PNG comes back, stored as the kiosk's last one.
@Suite("Kiosk screenshots from the dashboard", .serialized, .enabled(if: KioskLab.hasChromium, "Chromium is not installed"))
struct KioskScreenshotTests {
    private static let hubArguments = [
        "--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret, "--app-id", ContentLab.appId,
        "--app-secret", ContentLab.appSecret, "--fleet", "--user",
        "\(ContentLab.adminName):\(ContentLab.adminPassword)", "--admin", ContentLab.adminName,
    ]

    /// Signs in on the hub at `port`, and returns the browser and the session's CSRF token.
    private func signIn(port: Int) async throws -> (FleetBrowser, String) {
        var browser = FleetBrowser(port: port)
        let login = try await browser.login(ContentLab.adminName, ContentLab.adminPassword)
        #expect(login.status == 303, "\(login.text)")
        let overview = try await browser.send("GET", "/fleet")
        let csrf = try #require(FleetBrowser.csrf(in: overview.text), "no csrf field in /fleet")
        return (browser, csrf)
    }

    /// `POST /fleet/kiosks/{id}/screenshot` with the session and its CSRF token.
    private func requestScreenshot(_ browser: inout FleetBrowser, csrf: String, device: String) async throws -> RawHTTP.Response {
        try await browser.send(
            "POST", "/fleet/kiosks/\(device)/screenshot", headers: ["X-CSRF-Token: \(csrf)", "Origin: http://127.0.0.1:\(browser.port)"])
    }

    /// The colour at the centre of `png` (decoded by headless Chromium).
    private func centre(of png: Data) async throws -> [Int] {
        let chromium = try await HeadlessChromium.launch()
        return try await chromium.closingAfter { chromium in
            let page = try await chromium.newPage()
            let value = try await page.evaluate(
                """
                new Promise(function (done, fail) {
                  var image = new Image();
                  image.onload = function () {
                    var canvas = document.createElement('canvas');
                    canvas.width = image.width; canvas.height = image.height;
                    var context = canvas.getContext('2d');
                    context.drawImage(image, 0, 0);
                    var p = context.getImageData(Math.floor(image.width / 2), Math.floor(image.height / 2), 1, 1).data;
                    done([p[0], p[1], p[2]]);
                  };
                  image.onerror = function () { fail(new Error('not a PNG')); };
                  image.src = 'data:image/png;base64,\(png.base64EncodedString())';
                })
                """)
            guard case .array(let channels) = value else { return [] }
            return channels.compactMap { $0.intValue }
        }
    }

    @Test(
        "the dashboard's screenshot comes back within 5 s with the video's frame at its centre, is kept across a hub restart; 409 at once while no kiosk is attached"
    )
    func roundTrip() async throws {
        try await roundTrip(kiosk: ["--headless"], width: 800)
    }

    @Test(
        "the same in kiosk mode on a real X display (Xvfb)",
        .enabled(if: XvfbDisplay.isInstalled, "Xvfb is not installed (apt-get install xvfb)"))
    func roundTripOnXvfb() async throws {
        let display = try await XvfbDisplay.start(width: 1024, height: 768)
        defer { display.stop() }
        // Without a window manager the kiosk window keeps its --window-size (the lab's 800x600).
        try await roundTrip(kiosk: ["--display", display.name], width: 800)
    }

    /// The round trip with `storybridge kiosk` started with `kiosk`, whose page is `width` wide.
    private func roundTrip(kiosk kioskArguments: [String], width: Int) async throws {
        let hubLab = try ContentLab()
        let (device, token) = try DeviceStore(database: try HubDatabase(directory: hubLab.directory)).add(name: "lobby-screen")
        var hub = try await ContentServerProcess.start(hubLab, Self.hubArguments)
        defer { hub.process.kill() }
        let lab = try KioskLab()
        defer { lab.remove() }
        let tokenFile = lab.folder.appendingPathComponent("fleet-token")
        #expect(
            FileManager.default.createFile(atPath: tokenFile.path, contents: Data(token.text.utf8), attributes: [.posixPermissions: 0o600]))
        let serve = try await lab.startServe(
            ["--fleet", hub.baseURL, "--fleet-token-file", tokenFile.path, "--fleet-interval", "1s"], deck: try lab.videoDeck())
        defer { serve.kill() }
        let port = try #require(URL(string: hub.baseURL)?.port)
        var (browser, csrf) = try await signIn(port: port)

        // serve connected, no kiosk attached: 409 at once, saying so.
        var refused: RawHTTP.Response?
        let connectedBy = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < connectedBy {
            // Refused without waiting for a kiosk: the outcome says so (a wait would end in a timeout).
            let response = try await requestScreenshot(&browser, csrf: csrf, device: device.id)
            #expect(response.status == 409, "\(response.status) \(response.text)")
            if response.text.contains(ScreenshotOutcome.noKioskAttached) {
                refused = response
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(refused != nil, "serve never connected to the hub")

        let kiosk = try await lab.startKiosk(kioskArguments)
        defer { kiosk.kill() }
        try await lab.waitForTitle("playing")
        let response = try await requestScreenshot(&browser, csrf: csrf, device: device.id)
        #expect(response.status == 200, "\(response.status) \(response.text)\n\(lab.log)")
        let answer = try JSONValue.parse(response.text)
        // The page's viewport: the window's width, its height less what the window itself takes.
        #expect(answer["width"]?.intValue == width && (1...768).contains(answer["height"]?.intValue ?? 0), "\(response.text)")
        let picture = try await browser.send("GET", "/fleet/kiosks/\(device.id)/screenshot.png")
        #expect(picture.status == 200 && picture.headers["content-type"] == "image/png")
        let size = try #require(KioskBrowser.pngSize(picture.body))
        #expect(size.width == answer["width"]?.intValue && size.height == answer["height"]?.intValue)
        let pixel = try await centre(of: picture.body)
        let near = KioskLab.videoColours.contains { colour in zip(colour, pixel).allSatisfy { abs($0 - $1) <= 40 } && pixel.count == 3 }
        #expect(near, "the centre pixel \(pixel) is none of the video's colours")

        // The last screenshot outlives the hub.
        #expect(await hub.stop())
        hub = try await ContentServerProcess.start(hubLab, Self.hubArguments)
        let newPort = try #require(URL(string: hub.baseURL)?.port)
        (browser, csrf) = try await signIn(port: newPort)
        let kept = try await browser.send("GET", "/fleet/kiosks/\(device.id)/screenshot.png")
        #expect(kept.status == 200 && kept.body == picture.body)

        kiosk.terminate()
        #expect(await kiosk.exit() == 0)
        serve.terminate()
        _ = await serve.exit()
        #expect(await hub.stop())
    }
}
