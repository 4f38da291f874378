import Foundation
import StoryBridge
import StoryBridgeTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a page in headless Chromium waits for, each against a baseline in the same run:
///
/// 1. **In-page call**: a bridge call made by a page (storybridge's own storyclm.js, and a
///    storyclm.js 2.2 stand-in that only knows the legacy doorbell) against the same page's round
///    trip to the host's plain WebSocket echo. Echo and bridge blocks alternate.
/// 2. **Slide to slide**: in one tab, navigation start to the new slide's first bridge answer;
///    in another tab, the same slide's load (navigation start to the load event) from a plain static
///    file server serving the same folder; and the slide's HTML response time (request start to
///    response end) on both. Loads alternate between the two tabs.
///
/// The host is `storybridge serve --bench-echo --no-watch`, started as a child; the static server
/// runs in this process.
struct BrowserBenchmark {
    let quick: Bool
    /// Also report the network layer's timeline of the host tab's slide loads (``NetworkTimeline``).
    var networkTimeline = false

    var warmUpCalls: Int { quick ? 100 : 200 }
    var callRounds: Int { quick ? 2 : 20 }
    var callsPerRound: Int { quick ? 150 : 200 }
    var warmUpLoads: Int { quick ? 4 : 10 }
    var measuredLoads: Int { quick ? 30 : 120 }
    let slideCount = 8

    /// One table row: a baseline, the storybridge figure, and the target on their ratio.
    struct Row {
        let measurement: String
        let baseline: String
        let baselineValue: Double
        let bridge: String
        let bridgeValue: Double
        let target: Double?

        var line: String {
            let ratio = bridgeValue / baselineValue
            let verdict = target.map { ratio <= $0 ? String(format: "<= %.2fx (met)", $0) : String(format: "<= %.2fx (missed)", $0) } ?? ""
            return "| \(measurement) | \(baseline) | \(bridge) | \(String(format: "%.2fx", ratio)) | \(verdict) |"
        }
    }

    func run() async throws {
        let folder = try makeDeck()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeChild.start(folder: folder)
        defer { server.stop() }
        // The slides load storybridge's storyclm.js as a file of the presentation, byte for byte the
        // one the host serves, so the static server serves the same file.
        let (library, _) = try await URLSession.shared.data(from: URL(string: server.base + "/__storybridge/storyclm.js")!)
        try library.write(to: folder.appendingPathComponent("js/storyclm.js"))
        let files = try await StaticFileServer.start(folder: folder)
        // Two tabs take turns; a tab Chromium considers in the background would have its timers
        // throttled (aligned to whole seconds), which no viewer looking at a slide sees.
        let browser = try await HeadlessChromium.launch(extraArguments: [
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            // The in-page documents are handed to the tab by DevTools to make them cross-origin
            // isolated (``CrossOriginIsolation``); a document not loaded from the network counts as
            // public, and Chromium would then refuse its sockets to 127.0.0.1.
            "--disable-features=LocalNetworkAccessChecks",
        ])
        // Closed (its exit awaited) whether the body returns or throws.
        try await browser.closingAfter { browser in
            print(
                "host: storybridge serve (pid \(server.pid)) on \(server.base); static: FileMiddleware on \(files.base); browser: \(browser.binary)"
            )

            var rows: [Row] = []
            var handshakes: [String] = []
            for (page, label) in [("index.html", "own storyclm.js"), ("legacy.html", "storyclm.js 2.2 stand-in (doorbell)")] {
                let calls = try await inPageCalls(origin: server.base, path: "/p/1/\(page)", browser: browser)
                for (name, p) in [("p50", 0.5), ("p99", 0.99)] {
                    rows.append(
                        Row(
                            measurement: "in-page call, \(label), \(name) (\(calls.bridge.sorted.count) calls)",
                            baseline: String(format: "echo %.3f ms", calls.echo.percentile(p)), baselineValue: calls.echo.percentile(p),
                            bridge: String(format: "%.3f ms", calls.bridge.percentile(p)), bridgeValue: calls.bridge.percentile(p),
                            target: p == 0.5 ? 1.5 : 2.0))
                }
                // The mean, next to the percentiles, as a check on them.
                let echoMean = calls.echo.sorted.reduce(0, +) / Double(calls.echo.sorted.count)
                let bridgeMean = calls.bridge.sorted.reduce(0, +) / Double(calls.bridge.sorted.count)
                rows.append(
                    Row(
                        measurement: "in-page call, \(label), mean (for reference)", baseline: String(format: "echo %.3f ms", echoMean),
                        baselineValue: echoMean, bridge: String(format: "%.3f ms", bridgeMean), bridgeValue: bridgeMean, target: nil))
                handshakes.append(String(format: "%.1f ms (%@)", calls.handshake, label))
            }

            let loads = try await slideLoads(host: server.base + "/p/1", files: files.base, browser: browser)
            await files.stop()
            for (name, p) in [("p50", 0.5), ("p90", 0.9)] {
                rows.append(
                    Row(
                        measurement: "slide to slide, \(name) (\(loads.firstAnswer.sorted.count) loads each): navigation start to "
                            + "first bridge answer vs static load event",
                        baseline: String(format: "static %.1f ms", loads.staticLoad.percentile(p)),
                        baselineValue: loads.staticLoad.percentile(p),
                        bridge: String(format: "%.1f ms", loads.firstAnswer.percentile(p)), bridgeValue: loads.firstAnswer.percentile(p),
                        target: p == 0.5 ? 1.15 : nil))
            }
            rows.append(
                Row(
                    measurement: "slide load event, p50 (for reference)",
                    baseline: String(format: "static %.1f ms", loads.staticLoad.percentile(0.5)),
                    baselineValue: loads.staticLoad.percentile(0.5),
                    bridge: String(format: "%.1f ms", loads.bridgeLoad.percentile(0.5)), bridgeValue: loads.bridgeLoad.percentile(0.5),
                    target: nil))
            for (name, p) in [("p50", 0.5), ("p90", 0.9)] {
                rows.append(
                    Row(
                        measurement: "slide HTML response (request start to response end), \(name)",
                        baseline: String(format: "static %.2f ms", loads.staticHTML.percentile(p)),
                        baselineValue: loads.staticHTML.percentile(p),
                        bridge: String(format: "%.2f ms", loads.bridgeHTML.percentile(p)), bridgeValue: loads.bridgeHTML.percentile(p),
                        target: p == 0.5 ? 1.2 : nil))
            }

            print("")
            print("| measurement | baseline | storybridge | ratio | target |")
            print("|---|---|---|---|---|")
            for row in rows { print(row.line) }
            print("")
            print("Median milestones of a slide load, ms from navigation start (host / static):")
            for (name, label) in [
                ("responseEnd", "HTML received"), ("clientScript", "client.js received"), ("library", "storyclm.js received"),
                ("domReady", "DOMContentLoaded"), ("socketStart", "bridge socket opened by the client"),
                ("socketOpen", "bridge socket open"), ("hello", "hello received"),
                ("handled", "first answer handed to StoryCLMHandler"),
            ] {
                let host = loads.bridgeMilestones[name].map { String(format: "%.1f", $0) } ?? "-"
                let plain = loads.staticMilestones[name].map { String(format: "%.1f", $0) } ?? "-"
                print("  \(label): \(host) / \(plain)")
            }
            print(String(format: "  first bridge answer: %.1f / -", loads.firstAnswer.percentile(0.5)))
            print("WebSocket handshake to the echo from a page that has loaded: \(handshakes.joined(separator: ", "))")
            if let timeline = loads.timeline {
                print("")
                print("Network timeline of the host tab's slide loads (DevTools events; median ms from the document request):")
                for line in timeline.report() { print(line) }
            }
        }
    }

    // MARK: In-page calls

    /// Round trips of one page: to the plain echo, and through its storyclm.js to the bridge.
    func inPageCalls(origin: String, path: String, browser: HeadlessChromium) async throws -> (
        echo: Latencies, bridge: Latencies, handshake: Double
    ) {
        let page = try await browser.newPage()
        defer { Task { await page.close() } }
        let url = origin + path
        // A finer clock for the page: see ``CrossOriginIsolation``.
        try await CrossOriginIsolation.navigate(page, to: url, origin: origin)
        try await page.waitFor("window.__storybridge && window.__storybridge.state.connected && window.StoryCLM")
        guard try await page.evaluate("window.crossOriginIsolated === true") == .bool(true) else {
            throw BenchmarkFailure("\(url) did not load cross-origin isolated: its round trips would be timed in 0.1 ms steps")
        }
        let result = try await page.evaluate(
            """
            (async function (warmUp, rounds, perRound) {
              var tag = document.querySelector('script[data-storybridge]');
              var opening = performance.now();
              var socket = new WebSocket('ws://' + location.host + '/__storybridge/echo?token=' +
                encodeURIComponent(tag.getAttribute('data-token')));
              await new Promise(function (resolve, reject) { socket.onopen = resolve; socket.onerror = reject; });
              var handshake = performance.now() - opening;
              var waiting = null;
              socket.onmessage = function (event) { var done = waiting; waiting = null; done(JSON.parse(event.data)); };
              var request = JSON.stringify({ Command: 'getCurrentSlideName', Data: {}, GUID: 'GUID_echo' });
              function echo() { return new Promise(function (resolve) { waiting = resolve; socket.send(request); }); }
              function bridge() {
                return new Promise(function (resolve, reject) {
                  StoryCLM.Presentation.GetCurrentSlideName(function (answer) {
                    if (answer.status === 'Success') { resolve(answer); } else { reject(new Error(JSON.stringify(answer))); }
                  });
                });
              }
              async function sample(call, count, into) {
                for (var i = 0; i < count; i++) {
                  var started = performance.now();
                  await call();
                  if (into) { into.push(performance.now() - started); }
                }
              }
              var echoTimes = [], bridgeTimes = [];
              await sample(echo, warmUp, null);
              await sample(bridge, warmUp, null);
              for (var round = 0; round < rounds; round++) {
                await sample(echo, perRound, echoTimes);
                await sample(bridge, perRound, bridgeTimes);
              }
              socket.close();
              return { echo: echoTimes, bridge: bridgeTimes, handshake: handshake };
            })(\(warmUpCalls), \(callRounds), \(callsPerRound))
            """)
        let echo = result["echo"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let bridge = result["bridge"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        guard echo.count == callRounds * callsPerRound, bridge.count == echo.count else {
            throw BenchmarkFailure("the in-page calls of \(url) gave \(echo.count) echo and \(bridge.count) bridge samples")
        }
        return (Latencies(echo), Latencies(bridge), result["handshake"]?.doubleValue ?? .nan)
    }

    // MARK: Slide to slide

    struct SlideLoads {
        var firstAnswer: Latencies
        var bridgeLoad: Latencies
        var staticLoad: Latencies
        var bridgeHTML: Latencies
        var staticHTML: Latencies
        /// Medians of the milestones of a load, host and static (where the time goes).
        var bridgeMilestones: [String: Double]
        var staticMilestones: [String: Double]
        var timeline: NetworkTimeline?
    }

    /// Loads the slides one after another in two tabs, one on the host and one on the static
    /// server, alternating between the tabs; the first `warmUpLoads` of each are discarded.
    func slideLoads(host: String, files: String, browser: HeadlessChromium) async throws -> SlideLoads {
        let bridgeTab = try await browser.newPage()
        let staticTab = try await browser.newPage()
        defer {
            Task {
                await bridgeTab.close()
                await staticTab.close()
            }
        }
        // On the static server nobody answers storyclm.js, whose legacy doorbell (an iframe sent to
        // storyclm:SCLM_QUEUE) a plain browser would try to navigate, holding up the load event;
        // no app lets that navigation happen. A channel that drops the requests, set before the
        // slide's scripts run, keeps the library off the doorbell: every script of the slide still
        // loads and runs.
        try await staticTab.devTools.send(
            "Page.addScriptToEvaluateOnNewDocument", ["source": "window.__storybridge = { post: function () {} };"])
        // Where the time goes on the host tab: when the client opened its bridge socket, when it
        // was open, and when hello came (the page's own WebSocket, observed, not changed).
        try await bridgeTab.devTools.send(
            "Page.addScriptToEvaluateOnNewDocument",
            [
                "source": .string(
                    """
                    (function () {
                      var PageSocket = window.WebSocket;
                      window.WebSocket = function (url, protocols) {
                        var socket = protocols === undefined ? new PageSocket(url) : new PageSocket(url, protocols);
                        if (window.__socketStart === undefined) {
                          window.__socketStart = performance.now();
                          socket.addEventListener('open', function () { window.__socketOpen = performance.now(); });
                        }
                        return socket;
                      };
                      window.WebSocket.prototype = PageSocket.prototype;
                      window.WebSocket.OPEN = PageSocket.OPEN;
                      window.addEventListener('storybridge:hello', function () {
                        if (window.__hello === undefined) { window.__hello = performance.now(); }
                      });
                    })();
                    """)
            ])
        var timeline: NetworkTimeline?
        if networkTimeline {
            try await NetworkTimeline.enable(on: bridgeTab)
            timeline = NetworkTimeline()
        }
        var firstAnswer: [Double] = []
        var bridgeLoad: [Double] = []
        var staticLoad: [Double] = []
        var bridgeHTML: [Double] = []
        var staticHTML: [Double] = []
        var bridgeMilestones: [String: [Double]] = [:]
        var staticMilestones: [String: [Double]] = [:]
        for index in 0..<(warmUpLoads + measuredLoads) {
            let slide = "slide-\(index % slideCount + 1).html?n=\(index)"
            let onHost = try await load(tab: bridgeTab, url: "\(host)/\(slide)", search: "?n=\(index)", waitForAnswer: true)
            await timeline?.collect(from: bridgeTab, keep: index >= warmUpLoads)
            let onStatic = try await load(tab: staticTab, url: "\(files)/\(slide)", search: "?n=\(index)", waitForAnswer: false)
            guard index >= warmUpLoads else { continue }
            firstAnswer.append(onHost.firstAnswer ?? .nan)
            bridgeLoad.append(onHost.load)
            staticLoad.append(onStatic.load)
            bridgeHTML.append(onHost.html)
            staticHTML.append(onStatic.html)
            for (name, value) in onHost.milestones { bridgeMilestones[name, default: []].append(value) }
            for (name, value) in onStatic.milestones { staticMilestones[name, default: []].append(value) }
        }
        return SlideLoads(
            firstAnswer: Latencies(firstAnswer), bridgeLoad: Latencies(bridgeLoad), staticLoad: Latencies(staticLoad),
            bridgeHTML: Latencies(bridgeHTML), staticHTML: Latencies(staticHTML),
            bridgeMilestones: bridgeMilestones.mapValues { Latencies($0).percentile(0.5) },
            staticMilestones: staticMilestones.mapValues { Latencies($0).percentile(0.5) }, timeline: timeline)
    }

    struct LoadTiming {
        let load: Double
        let html: Double
        let firstAnswer: Double?
        /// Milestones from navigation start: the HTML's last byte, client.js and storyclm.js
        /// fetched, DOMContentLoaded.
        let milestones: [String: Double]
    }

    /// Navigates `tab` to `url` and reads the new document's Navigation Timing once it has loaded
    /// (and, on the host, once its first bridge call has been answered).
    func load(tab: BrowserPage, url: String, search: String, waitForAnswer: Bool) async throws -> LoadTiming {
        try await tab.devTools.send("Page.bringToFront")
        try await tab.devTools.send("Page.navigate", ["url": .string(url)])
        let quotedSearch = JSONValue.string(search).jsonString()
        let unanswered = waitForAnswer ? " || window.__firstAnswer === undefined" : ""
        let timing = try await tab.waitFor(
            """
            (function () {
              if (location.search !== \(quotedSearch)) { return null; }
              var entry = performance.getEntriesByType('navigation')[0];
              if (!entry || !(entry.loadEventEnd > 0)\(unanswered)) { return null; }
              var scripts = {};
              performance.getEntriesByType('resource').forEach(function (resource) {
                scripts[resource.name.split('?')[0].split('/').pop()] = resource.responseEnd;
              });
              return { load: entry.loadEventStart, html: entry.responseEnd - entry.requestStart,
                responseEnd: entry.responseEnd, domReady: entry.domContentLoadedEventStart,
                clientScript: scripts['client.js'] || null, library: scripts['storyclm.js'] || null,
                socketStart: window.__socketStart || null, socketOpen: window.__socketOpen || null,
                hello: window.__hello || null, handled: window.__firstHandled || null,
                firstAnswer: window.__firstAnswer === undefined ? null : window.__firstAnswer,
                status: window.__firstAnswerStatus || null, visibility: document.visibilityState };
            })()
            """, timeout: .seconds(20))
        guard let loadTime = timing["load"]?.doubleValue, let html = timing["html"]?.doubleValue else {
            throw BenchmarkFailure("no navigation timing for \(url): \(timing.jsonString())")
        }
        if timing["visibility"]?.stringValue != "visible" {
            throw BenchmarkFailure("the tab loading \(url) was not visible: \(timing.jsonString())")
        }
        if waitForAnswer, timing["status"]?.stringValue != "Success" {
            throw BenchmarkFailure("the first bridge call of \(url) failed: \(timing.jsonString())")
        }
        var milestones: [String: Double] = [:]
        for name in ["responseEnd", "clientScript", "library", "domReady", "socketStart", "socketOpen", "hello", "handled"] {
            if let value = timing[name]?.doubleValue { milestones[name] = value }
        }
        return LoadTiming(load: loadTime, html: html, firstAnswer: timing["firstAnswer"]?.doubleValue, milestones: milestones)
    }

    // MARK: The deck

    /// `index.html` (in-page calls through storybridge's storyclm.js), `legacy.html` (the same with
    /// the 2.2 stand-in), and `slide-1.html` ... of 20 KB each, which ask the bridge for the current
    /// slide's name as soon as their storyclm.js has loaded. `js/storyclm.js` is written once the
    /// host runs.
    func makeDeck() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        func callPage(_ library: String) -> String {
            """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>in-page calls</title>
            <script src="js/\(library)"></script></head><body><h1>in-page calls</h1></body></html>

            """
        }
        try callPage("storyclm.js").write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try callPage("legacy-storyclm.js").write(to: folder.appendingPathComponent("legacy.html"), atomically: true, encoding: .utf8)
        try LegacyStoryCLMLibrary.source.write(
            to: folder.appendingPathComponent("js/legacy-storyclm.js"), atomically: true, encoding: .utf8)
        var filler = ""
        while filler.utf8.count < 20_000 { filler += "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.</p>\n" }
        for number in 1...slideCount {
            let next = number % slideCount + 1
            let html = """
                <!DOCTYPE html><html><head><meta charset="utf-8"><title>slide \(number)</title>
                <meta name="clm-swipe-next" content="slide-\(next).html">
                <script src="js/storyclm.js"></script>
                <script>
                (function (handler) {
                  StoryCLMBridge.StoryCLMHandler = function (text) {
                    if (window.__firstHandled === undefined) { window.__firstHandled = performance.now(); }
                    return handler.apply(this, arguments);
                  };
                })(StoryCLMBridge.StoryCLMHandler);
                StoryCLM.Presentation.GetCurrentSlideName(function (answer) {
                  if (window.__firstAnswer === undefined) {
                    window.__firstAnswer = performance.now();
                    window.__firstAnswerStatus = answer.status;
                  }
                });
                </script></head><body><h1>slide \(number)</h1>
                \(filler)</body></html>

                """
            try html.write(to: folder.appendingPathComponent("slide-\(number).html"), atomically: true, encoding: .utf8)
        }
        return folder
    }
}
