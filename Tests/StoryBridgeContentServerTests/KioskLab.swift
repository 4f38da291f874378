import AsyncHTTPClient
import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting

/// `serve` and `storybridge kiosk` as real processes on one data folder of a test's own, with
/// what the tests read of the kiosk: its log, its browser's pids and the pages its browser shows.
final class KioskLab: Sendable {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/presentations/demo")

    /// Whether Chromium is installed (the tests that need it are skipped otherwise).
    static var hasChromium: Bool { (try? HeadlessChromium.locate()) != nil }

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-kiosk-lab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The data folder both processes share.
    var data: URL { folder.appendingPathComponent("data") }
    var directory: DataDirectory { DataDirectory(data) }
    private var logFile: URL { folder.appendingPathComponent("kiosk.log") }
    private var serveLogFile: URL { folder.appendingPathComponent("serve.log") }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Starts `serve` of `deck` (the demo by default) on port 0 with `arguments`, once it listens.
    func startServe(_ arguments: [String] = [], deck: URL = KioskLab.demo) async throws -> LaunchedProcess {
        let output = Pipe()
        try Data().write(to: serveLogFile)
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: ["serve", deck.path, "--port", "0", "--data-dir", data.path, "--no-watch"] + arguments,
            output: .pipe(output), error: .handle(try FileHandle(forWritingTo: serveLogFile)))
        let banner = await readUntil("Ctrl-C", from: output)
        guard banner.contains("Ctrl-C") else {
            process.kill()
            throw KioskLabFailure("serve did not start: \(banner)")
        }
        return process
    }

    /// Starts `storybridge kiosk` with `arguments` (`--headless` by default), its log in a file.
    func startKiosk(_ arguments: [String] = ["--headless"], environment: [String: String]? = nil) async throws -> LaunchedProcess {
        try Data().write(to: logFile)
        let log = try FileHandle(forWritingTo: logFile)
        return try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: ["kiosk", "--data-dir", data.path, "--window-size", "800x600"] + arguments, environment: environment,
            output: .handle(log), error: .handle(log))
    }

    /// What the kiosk logged so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// What `serve` logged so far (its standard error), for failure messages.
    var serveLog: String { (try? String(contentsOf: serveLogFile, encoding: .utf8)) ?? "" }

    /// The pids of the browsers the kiosk started, in order.
    var browserPIDs: [Int32] {
        log.split(separator: "\n").filter { $0.contains("kiosk browser started") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("pid=") }.flatMap { Int32($0.dropFirst(4)) }
        }
    }

    /// Waits until the kiosk logged a browser start beyond `known`, and returns its pid.
    func nextBrowser(after known: [Int32], within limit: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let pid = browserPIDs.first(where: { !known.contains($0) }) { return pid }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw KioskLabFailure("no new browser within \(limit); the kiosk's log:\n\(log)")
    }

    /// The URLs of the pages of the kiosk's current browser (from its DevTools `/json/list`).
    func pageURLs() async -> [String] {
        await pages().map(\.url)
    }

    /// The pages (URL and title) of the kiosk's current browser (from its DevTools `/json/list`).
    func pages() async -> [(url: String, title: String)] {
        await pageTargets().compactMap { target in
            target["url"]?.stringValue.map { ($0, target["title"]?.stringValue ?? "") }
        }
    }

    /// The DevTools port of the kiosk's current browser (its profile's `DevToolsActivePort`).
    var devToolsPort: Int? {
        guard let profiles = try? FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("kiosk").path),
            let profile = profiles.first(where: { $0.hasPrefix("profile-") }),
            let text = try? String(
                contentsOf: data.appendingPathComponent("kiosk").appendingPathComponent(profile).appendingPathComponent(
                    "DevToolsActivePort"),
                encoding: .utf8)
        else { return nil }
        return text.split(separator: "\n").first.flatMap { Int($0) }
    }

    /// The page targets of the kiosk's current browser as its DevTools `/json/list` gives them.
    func pageTargets() async -> [JSONValue] {
        guard let port = devToolsPort else { return [] }
        do {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/json/list"), timeout: .seconds(5))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard case .array(let targets) = try JSONValue.parse(String(buffer: body)) else { return [] }
            return targets.filter { $0["type"]?.stringValue == "page" }
        } catch {
            return []
        }
    }

    /// Waits until the kiosk's browser shows a page titled `title`.
    func waitForTitle(_ title: String, within limit: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + limit
        var last: [(url: String, title: String)] = []
        while ContinuousClock.now < deadline {
            last = await pages()
            if last.contains(where: { $0.title == title }) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw KioskLabFailure("no page titled \(title) within \(limit) (pages: \(last)); the kiosk's log:\n\(log)")
    }

    /// A deck of one slide that plays a looping video whose frames are solid red, green and
    /// blue, filling the window, and titles itself `playing` once the video plays. No encoder is
    /// installed here, so the slide makes the video itself: it records a canvas painted in the
    /// three colours with MediaRecorder (WebM) and plays the recording as a file, looping.
    func videoDeck() throws -> URL {
        let deck = folder.appendingPathComponent("video-deck")
        try FileManager.default.createDirectory(at: deck, withIntermediateDirectories: true)
        try Self.videoSlide.write(to: deck.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        return deck
    }

    /// The colours of ``videoDeck()``'s frames.
    static let videoColours: [[Int]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]

    private static let videoSlide = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>recording</title>
        <style>html,body{margin:0;height:100%;background:#000;overflow:hidden}
        video{position:fixed;left:0;top:0;width:100vw;height:100vh;object-fit:fill}</style></head>
        <body><video id="film" muted loop playsinline></video>
        <script>
        (function () {
          var colours = ['#ff0000', '#00ff00', '#0000ff'];
          var canvas = document.createElement('canvas');
          canvas.width = 64; canvas.height = 64;
          var paint = canvas.getContext('2d'), frame = 0;
          function next() { paint.fillStyle = colours[frame++ % 3]; paint.fillRect(0, 0, 64, 64); }
          next();
          var painter = setInterval(next, 150);
          var recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: 'video/webm;codecs=vp8' });
          var parts = [];
          recorder.ondataavailable = function (e) { if (e.data.size) parts.push(e.data); };
          recorder.onstop = function () {
            clearInterval(painter);
            var film = document.getElementById('film');
            film.addEventListener('playing', function () { document.title = 'playing'; });
            film.src = URL.createObjectURL(new Blob(parts, { type: 'video/webm' }));
            film.play();
          };
          recorder.start(100);
          setTimeout(function () { recorder.stop(); }, 1500);
        })();
        </script></body></html>
        """

    /// Waits until the kiosk's browser shows a page under `base`, and returns its URL.
    @discardableResult
    func waitForPage(under base: String, within limit: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        var last: [String] = []
        while ContinuousClock.now < deadline {
            last = await pageURLs()
            if let url = last.first(where: { $0.hasPrefix(base) }) { return url }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw KioskLabFailure("the kiosk's browser showed no page under \(base) within \(limit) (pages: \(last)); its log:\n\(log)")
    }
}

/// A kiosk lab's step that did not happen.
struct KioskLabFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
