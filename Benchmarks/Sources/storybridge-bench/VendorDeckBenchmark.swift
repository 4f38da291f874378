import Foundation
import StoryBridge
import StoryBridgeTesting

/// `storybridge-bench browser --deck vendor`: the vendor's own test deck (the `presentation` folder
/// of the storyCLM.js repository, with its bundled storyclm-2.2.0.js, jQuery, Bootstrap, fonts),
/// loaded slide after slide in two tabs of headless Chromium, one on the host and one on a plain
/// static file server, alternating. Each load is taken apart into phases (Navigation and Resource
/// Timing, the bridge socket, the library's first call and its answer), so the difference between
/// the two tabs can be located. The deck is read at run time from a local mirror of the repository
/// (`STORYCLM_JS_MIRROR`, a git directory); nothing of it is kept in this repository.
struct VendorDeckBenchmark {
    var pairs = 50
    var warmUpPairs = 6
    var mirror = ProcessInfo.processInfo.environment["STORYCLM_JS_MIRROR"] ?? "/work/.mirror/storyclm+storyCLM.js/repo"
    /// Which tab of a pair loads first.
    enum Order: String { case alternate, hostFirst = "host-first", staticFirst = "static-first" }
    var order = Order.alternate
    /// The branch of the mirror the deck is taken from.
    var branch = "develop"
    /// Adds a third tab, on the host with its bridge socket withheld (`WebSocket` never connects),
    /// to split the host's extra time into the page's own part (the client script, the host's HTTP)
    /// and the bridge's part (the socket, hello, the page load recorded while the page loads).
    var isolate = false
    /// The static tab's server: a person's plain `python3 -m http.server` (heuristic caching, the
    /// default) or Hummingbird's `FileMiddleware` with the host's cache policy (`no-cache`, ETag).
    enum StaticServer: String { case python, hummingbird }
    var staticServer = StaticServer.python

    func run() async throws {
        guard FileManager.default.fileExists(atPath: mirror) else {
            print("storybridge-bench: no storyCLM.js mirror at \(mirror) (set STORYCLM_JS_MIRROR to a git directory of it): skipped")
            return
        }
        let folder = try await extractDeck()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // The slides that load the library (index.html is a menu of links without it).
        let slides = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { name in
            name.hasSuffix(".html")
                && (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))?.contains("storyclm-2") == true
        }.sorted()
        let server = try await ServeChild.start(folder: folder)
        defer { server.stop() }
        let python = staticServer == .python ? try await PythonStaticServer.start(folder: folder) : nil
        defer { python?.stop() }
        let hummingbird = staticServer == .hummingbird ? try await StaticFileServer.start(folder: folder) : nil
        let staticBase = python?.base ?? hummingbird?.base ?? ""
        let browser = try await HeadlessChromium.launch(extraArguments: [
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
        ])
        // Closed (its exit awaited) whether the body returns or throws.
        try await browser.closingAfter { browser in
            print("vendor deck: \(branch):presentation of \(mirror), \(slides.count) slides (\(slides.joined(separator: ", ")))")
            let staticName = staticServer == .python ? "python3 -m http.server" : "FileMiddleware (no-cache, ETag)"
            print("host: storybridge serve (pid \(server.pid)) on \(server.base); static: \(staticName) on \(staticBase)")

            let hostTab = try await browser.newPage()
            let staticTab = try await browser.newPage()
            for tab in [hostTab, staticTab] {
                try await tab.devTools.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(Self.observer)])
            }
            try await staticTab.devTools.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(Self.silentDoorbell)])
            // Its stand-in for WebSocket goes in before the observer, which wraps whatever it finds.
            let withheldTab = isolate ? try await browser.newPage() : nil
            if let withheldTab {
                for script in [Self.withheldSocket, Self.observer] {
                    try await withheldTab.devTools.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(script)])
                }
            }
            var host: [[String: Double]] = []
            var plain: [[String: Double]] = []
            var withheld: [[String: Double]] = []
            for index in 0..<(warmUpPairs + pairs) {
                let slide = "\(slides[index % slides.count])?n=\(index)"
                let search = "?n=\(index)"
                var loads: [() async throws -> Void] = [
                    { host.append(try await load(hostTab, "\(server.base)/p/1/\(slide)", search, answered: true)) },
                    { plain.append(try await load(staticTab, "\(staticBase)/\(slide)", search, answered: false)) },
                ]
                if let withheldTab {
                    loads.append { withheld.append(try await load(withheldTab, "\(server.base)/p/1/\(slide)", search, answered: false)) }
                }
                // Which tab goes first turns too, so none always loads right after another.
                let first: Int
                switch order {
                case .alternate: first = index % loads.count
                case .hostFirst: first = 0
                case .staticFirst: first = 1
                }
                for step in 0..<loads.count { try await loads[(first + step) % loads.count]() }
                guard index >= warmUpPairs else {
                    host.removeAll()
                    plain.removeAll()
                    withheld.removeAll()
                    continue
                }
            }
            await hostTab.close()
            await staticTab.close()
            await withheldTab?.close()
            await hummingbird?.stop()
            report(host: host, plain: plain)
            if isolate { reportIsolated(host: host, withheld: withheld, plain: plain) }
        }
    }

    // MARK: One load

    /// What every document of both tabs reports, set before any of its scripts: when its bridge
    /// socket opened and was open, when hello came, and when the library made its first call and
    /// got its first answer (its `StoryCLMBridge.Invoke` and `StoryCLMHandler`, observed by
    /// wrapping them when the library sets `window.StoryCLMBridge`, not changed).
    static let observer = """
        (function () {
          var marks = window.__marks = {};
          function mark(name) { if (marks[name] === undefined) { marks[name] = performance.now(); } }
          // When the document ran its first script (this one, which Chromium runs just before the
          // page's first), and when the host's client, first in the head, had run (it sets
          // window.__storybridge near its end).
          mark('documentStart');
          var client;
          Object.defineProperty(window, '__storybridge', {
            configurable: true,
            get: function () { return client; },
            set: function (value) { client = value; mark('clientDone'); }
          });
          var PageSocket = window.WebSocket;
          window.WebSocket = function (url, protocols) {
            var socket = protocols === undefined ? new PageSocket(url) : new PageSocket(url, protocols);
            mark('socketStart');
            socket.addEventListener('open', function () { mark('socketOpen'); });
            // The first answer the host itself sends (hello and other events carry no GUID).
            socket.addEventListener('message', function (event) {
              if (typeof event.data === 'string' && event.data.indexOf('"GUID"') >= 0) { mark('hostAnswer'); }
            });
            return socket;
          };
          window.WebSocket.prototype = PageSocket.prototype;
          ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'].forEach(function (name) { window.WebSocket[name] = PageSocket[name]; });
          window.addEventListener('storybridge:hello', function () { mark('hello'); });
          // How long each synchronous request kept the page waiting (the last one's, ms).
          var xhrSend = XMLHttpRequest.prototype.send;
          XMLHttpRequest.prototype.send = function () {
            var started = performance.now();
            try { return xhrSend.apply(this, arguments); } finally { marks.xhrStart = started; marks.xhrWait = performance.now() - started; }
          };
          var bridge;
          Object.defineProperty(window, 'StoryCLMBridge', {
            configurable: true,
            get: function () { return bridge; },
            set: function (value) {
              bridge = value;
              if (!value || typeof value.Invoke !== 'function') { return; }
              var invoke = value.Invoke, handler = value.StoryCLMHandler;
              value.Invoke = function (command, data, callback) {
                mark('firstCall');
                var observed = typeof callback !== 'function' ? callback : function () {
                  mark('firstAnswer');
                  return callback.apply(this, arguments);
                };
                return invoke.call(this, command, data, observed);
              };
              value.StoryCLMHandler = function () {
                mark('handled');
                if (marks.probeCall !== undefined && marks.probeAnswer === undefined) { marks.lastHandled = performance.now(); }
                return handler.apply(this, arguments);
              };
            }
          });
          // The probe: what a deck that restores its state does when its document is ready, a read
          // the host answers (the page answers only getNavigationData and getCurrentSlideName itself).
          document.addEventListener('DOMContentLoaded', function () {
            if (!bridge || typeof bridge.Invoke !== 'function') { return; }
            mark('probeCall');
            bridge.Invoke('getCustomEventByKey', { key: 'storybridge-bench-probe' }, function () { mark('probeAnswer'); });
          });
          // A write when the slide has loaded (a deck noting that it was shown): writes go over the
          // socket only, so its callback says when the socket took its first request.
          window.addEventListener('load', function () {
            if (!bridge || typeof bridge.Invoke !== 'function') { return; }
            mark('writeCall');
            bridge.Invoke('setCustomEvent', { key: 'storybridge-bench-write', value: 'shown' }, function () { mark('writeAnswer'); });
          });
        })();
        """

    /// The static tab only: the library's doorbell (its iframe's `src` set to `storyclm:SCLM_QUEUE`)
    /// goes nowhere, as in every app. Left alone, a plain browser tries to navigate the iframe to the
    /// unknown scheme, which held up the static tab's load event in the browser benchmark and would
    /// flatter the host.
    static let silentDoorbell = #"""
        (function () {
          var src = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'src');
          Object.defineProperty(HTMLIFrameElement.prototype, 'src', {
            configurable: true, enumerable: src.enumerable,
            get: function () { return src.get.call(this); },
            set: function (value) { if (!/^\s*storyclm:/i.test(String(value))) { src.set.call(this, value); } }
          });
        })();
        """#

    /// The isolating tab only (`--isolate`): a `WebSocket` that never connects, so the client runs
    /// and the library calls as usual while the host sees no socket, no hello and records no page load.
    static let withheldSocket = """
        (function () {
          function Withheld(url) { this.url = url; this.readyState = 0; this.bufferedAmount = 0; }
          Withheld.prototype.send = function () {};
          Withheld.prototype.close = function () {};
          Withheld.prototype.addEventListener = function () {};
          Withheld.prototype.removeEventListener = function () {};
          Withheld.CONNECTING = 0; Withheld.OPEN = 1; Withheld.CLOSING = 2; Withheld.CLOSED = 3;
          window.WebSocket = Withheld;
        })();
        """

    /// Navigates `tab` to `url` and returns the load's phases, ms (from navigation start unless the
    /// name says a duration), once the load event has run (and, `answered`, the first answer came).
    func load(_ tab: BrowserPage, _ url: String, _ search: String, answered: Bool) async throws -> [String: Double] {
        try await tab.devTools.send("Page.bringToFront")
        try await tab.devTools.send("Page.navigate", ["url": .string(url)])
        let unanswered =
            answered ? " || window.__marks.probeAnswer === undefined || window.__marks.writeAnswer === undefined" : ""
        let timing = try await tab.waitFor(
            """
            (function () {
              if (location.search !== \(JSONValue.string(search).jsonString())) { return null; }
              var entry = performance.getEntriesByType('navigation')[0];
              if (!entry || !(entry.loadEventEnd > 0)\(unanswered)) { return null; }
              var resources = performance.getEntriesByType('resource').filter(function (r) {
                return r.initiatorType !== 'xmlhttprequest' && r.initiatorType !== 'fetch';
              });
              var revalidated = 0, full = 0, bytes = 0, lastEnd = 0, durations = [];
              var each = {};
              resources.forEach(function (r) {
                var name = r.name.replace(/^.*[/]([^/?]+)([?].*)?$/, '$1');
                each['start:' + name] = r.startTime;
                each['end:' + name] = r.responseEnd;
                if (r.responseStatus === 304) { revalidated += 1; } else if (r.responseStatus === 200) { full += 1; }
                bytes += r.transferSize;
                lastEnd = Math.max(lastEnd, r.responseEnd);
                durations.push(r.responseEnd - r.startTime);
              });
              durations.sort(function (a, b) { return a - b; });
              var result = {
                connect: entry.connectEnd - entry.connectStart, htmlWaiting: entry.responseStart - entry.requestStart,
                htmlTransfer: entry.responseEnd - entry.responseStart, htmlBytes: entry.transferSize,
                htmlEnd: entry.responseEnd, unloadStart: entry.unloadEventStart, unloadEnd: entry.unloadEventEnd,
                fetchStart: entry.fetchStart, domInteractive: entry.domInteractive, domReady: entry.domContentLoadedEventStart, load: entry.loadEventStart,
                resources: resources.length, resourcesRevalidated: revalidated, resourcesFull: full, resourceBytes: bytes,
                lastResourceEnd: lastEnd, resourceMedian: durations.length ? durations[durations.length >> 1] : 0,
                visible: document.visibilityState === 'visible' ? 1 : 0
              };
              Object.keys(window.__marks).forEach(function (name) { result[name] = window.__marks[name]; });
              Object.keys(each).forEach(function (name) { result[name] = each[name]; });
              return result;
            })()
            """, timeout: .seconds(30))
        guard case .object(let fields) = timing else { throw BenchmarkFailure("no timing for \(url): \(timing.jsonString())") }
        let values = fields.compactMapValues(\.doubleValue)
        guard values["visible"] == 1 else { throw BenchmarkFailure("the tab loading \(url) was not visible") }
        return values
    }

    // MARK: Report

    func report(host: [[String: Double]], plain: [[String: Double]]) {
        func column(_ loads: [[String: Double]], _ name: String) -> [Double] { loads.compactMap { $0[name] } }
        func spread(_ values: [Double], _ format: String) -> String {
            let sorted = Latencies(values)
            guard !sorted.sorted.isEmpty else { return "-" }
            return String(format: "\(format) (\(format)-\(format))", median(values), sorted.percentile(0.1), sorted.percentile(0.9))
        }
        print("")
        print(
            "\(pairs) pairs after \(warmUpPairs) warm-up pairs, order \(order.rawValue); median (p10-p90), ms from navigation start unless a duration"
        )
        print("| phase | host | static | host - static (median of pairs) |")
        print("|---|---|---|---|")
        let phases: [(String, String, String)] = [
            ("connect", "HTML connection set-up (duration)", "%.2f"), ("htmlWaiting", "HTML request to first byte (duration)", "%.2f"),
            ("htmlTransfer", "HTML first to last byte (duration)", "%.2f"), ("htmlBytes", "HTML bytes transferred", "%.0f"),
            ("fetchStart", "HTML fetch start", "%.1f"), ("htmlEnd", "HTML received", "%.1f"),
            ("unloadStart", "previous slide's unload event start", "%.1f"), ("unloadEnd", "previous slide's unload event end", "%.1f"),
            ("domInteractive", "DOM interactive", "%.1f"), ("resources", "subresources", "%.0f"),
            ("resourcesFull", "subresources sent whole (200)", "%.0f"), ("resourcesRevalidated", "subresources revalidated (304)", "%.0f"),
            ("resourceBytes", "subresource bytes transferred", "%.0f"), ("resourceMedian", "subresource fetch (duration)", "%.2f"),
            ("lastResourceEnd", "last subresource received", "%.1f"), ("domReady", "DOMContentLoaded", "%.1f"),
            ("load", "load event", "%.1f"), ("documentStart", "first script run (the observer)", "%.1f"),
            ("clientDone", "host's client has run", "%.1f"), ("firstCall", "library's first call", "%.1f"),
            ("socketStart", "bridge socket opened", "%.1f"),
            ("socketOpen", "bridge socket open", "%.1f"), ("hello", "hello received", "%.1f"),
            ("handled", "first answer handed to StoryCLMHandler", "%.1f"), ("firstAnswer", "first answer's callback", "%.1f"),
            ("probeCall", "probe call (DOMContentLoaded)", "%.1f"), ("xhrStart", "synchronous request sent", "%.1f"),
            ("xhrWait", "synchronous request's wait (duration)", "%.2f"),
            ("lastHandled", "probe's answer handed to StoryCLMHandler", "%.1f"),
            ("hostAnswer", "first answer from the host received", "%.1f"),
            ("probeAnswer", "probe's callback", "%.1f"), ("writeCall", "a write at the load event: sent", "%.1f"),
            ("writeAnswer", "the write's callback (over the socket)", "%.1f"),
        ]
        for (name, label, format) in phases {
            let hostValues = column(host, name)
            let plainValues = column(plain, name)
            let differences = zip(host, plain).compactMap { pair in pair.0[name].flatMap { h in pair.1[name].map { h - $0 } } }
            let difference = differences.isEmpty ? "-" : String(format: format, median(differences))
            print("| \(label) | \(spread(hostValues, format)) | \(spread(plainValues, format)) | \(difference) |")
        }
        // Each subresource: when it was asked for and received (median of the loads that had it).
        let resourceNames = Set((host + plain).flatMap { $0.keys }.filter { $0.hasPrefix("end:") }.map { String($0.dropFirst(4)) })
        print("")
        print("| subresource | host: asked, received | static: asked, received |")
        print("|---|---|---|")
        for name in resourceNames.sorted() {
            func cell(_ loads: [[String: Double]]) -> String {
                let starts = column(loads, "start:" + name)
                let ends = column(loads, "end:" + name)
                return starts.isEmpty ? "-" : String(format: "%.1f, %.1f", median(starts), median(ends))
            }
            print("| \(name) | \(cell(host)) | \(cell(plain)) |")
        }
        // Ratios of each pair, and of blocks of 10 pairs (the spread a shorter run would show).
        let loadRatios = zip(host, plain).compactMap { pair in pair.0["load"].flatMap { h in pair.1["load"].map { h / $0 } } }
        let answerRatios = zip(host, plain).compactMap { pair in pair.0["firstAnswer"].flatMap { h in pair.1["load"].map { h / $0 } } }
        let hostAnswerRatios = zip(host, plain).compactMap { pair in pair.0["hostAnswer"].flatMap { h in pair.1["load"].map { h / $0 } } }
        let probeRatios = zip(host, plain).compactMap { pair in pair.0["probeAnswer"].flatMap { h in pair.1["load"].map { h / $0 } } }
        let writeRatios = zip(host, plain).compactMap { pair in pair.0["writeAnswer"].flatMap { h in pair.1["load"].map { h / $0 } } }
        func blocks(_ ratios: [Double]) -> String {
            stride(from: 0, to: ratios.count - 9, by: 10).map { String(format: "%.2f", median(Array(ratios[$0..<($0 + 10)]))) }
                .joined(separator: " ")
        }
        print("")
        print(
            String(
                format: "slide load, host / static load event: median of pairs %.2fx; blocks of 10: %@", median(loadRatios),
                blocks(loadRatios)))
        print(
            String(
                format: "first answer (host) / static load event: median of pairs %.2fx; blocks of 10: %@", median(answerRatios),
                blocks(answerRatios)))
        print(
            String(
                format: "first answer from the host / static load event: median of pairs %.2fx; blocks of 10: %@",
                median(hostAnswerRatios), blocks(hostAnswerRatios)))
        print(
            String(
                format: "probe's callback (host) / static load event: median of pairs %.2fx; blocks of 10: %@", median(probeRatios),
                blocks(probeRatios)))
        print(
            String(
                format: "the write's callback (host) / static load event: median of pairs %.2fx; blocks of 10: %@", median(writeRatios),
                blocks(writeRatios)))
        print(
            String(
                format: "ratio of medians: load %.2fx, first answer %.2fx", median(column(host, "load")) / median(column(plain, "load")),
                median(column(host, "firstAnswer")) / median(column(plain, "load"))))
    }

    /// The split `--isolate` measures: per load of a slide in turn, the host tab against the host
    /// tab with its socket withheld (the bridge's part), and that tab against the static one (the
    /// page's own part: the client script, the host's HTTP).
    func reportIsolated(host: [[String: Double]], withheld: [[String: Double]], plain: [[String: Double]]) {
        func difference(_ one: [[String: Double]], _ other: [[String: Double]], _ name: String) -> String {
            let values = zip(one, other).compactMap { pair in pair.0[name].flatMap { a in pair.1[name].map { a - $0 } } }
            return values.isEmpty ? "-" : String(format: "%.1f", median(values))
        }
        print("")
        print("the host's extra time split (--isolate), median of each slide's differences, ms:")
        print("| phase | host - host with socket withheld (bridge's part) | withheld - static (page's part) | host - static |")
        print("|---|---|---|---|")
        let phases = [
            ("htmlEnd", "HTML received"), ("documentStart", "first script run (the observer)"),
            ("lastResourceEnd", "last subresource received"), ("domReady", "DOMContentLoaded"),
            ("firstCall", "library's first call"), ("load", "load event"), ("probeAnswer", "probe's callback"),
        ]
        for (name, label) in phases {
            print(
                "| \(label) | \(difference(host, withheld, name)) | \(difference(withheld, plain, name)) | \(difference(host, plain, name)) |"
            )
        }
        let ratios = zip(withheld, plain).compactMap { pair in pair.0["load"].flatMap { w in pair.1["load"].map { w / $0 } } }
        print(String(format: "slide load, host with socket withheld / static: median of pairs %.2fx", median(ratios)))
        let probeRatios = zip(withheld, plain).compactMap { pair in pair.0["probeAnswer"].flatMap { w in pair.1["load"].map { w / $0 } } }
        if !probeRatios.isEmpty {
            print(
                String(
                    format: "probe's callback, host with socket withheld / static load event: median of pairs %.2fx", median(probeRatios)))
        }
    }

    // MARK: The deck

    /// `git archive` of the mirror's `presentation` folder into a temporary folder; returns that
    /// `presentation` folder.
    func extractDeck() async throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-vendor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let shell = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "git -C \"$0\" archive \"$1\" presentation | tar -x -C \"$2\"", mirror, branch, root.path])
        let status = await shell.exit()
        let folder = root.appendingPathComponent("presentation")
        guard status == 0, FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.html").path) else {
            throw BenchmarkFailure("could not take \(branch):presentation out of \(mirror) (git archive | tar ended \(status))")
        }
        return folder
    }
}
