import StoryBridge
import StoryBridgeScripts

/// `browser --network-timeline`: when each step of a slide load happened in Chromium's network
/// layer and page lifecycle, as the DevTools protocol reports them (`Network.*` and `Page.*`
/// events), in ms from the slide's document request. It shows what the page's own milestones
/// cannot: when the bridge socket's handshake and first frames crossed the network layer, next to
/// the load event. Enabling the domains slows every load a little; compare within one run.
struct NetworkTimeline {
    private var samples: [String: [Double]] = [:]

    /// Turns on the events this timeline reads, on `tab`.
    static func enable(on tab: BrowserPage) async throws {
        try await tab.devTools.send("Network.enable")
        try await tab.devTools.send("Page.enable")
    }

    /// Reads the events `tab` has buffered since the last call (one slide load's) and, when
    /// `keep`, adds their times to the timeline.
    mutating func collect(from tab: BrowserPage, keep: Bool) async {
        var start: Double?
        var marks: [String: Double] = [:]
        var framesSent = 0
        var framesReceived = 0
        while let event = await tab.devTools.events.next(timeout: .milliseconds(5)) {
            let params = event["params"]
            let time = (params?["timestamp"]?.doubleValue ?? 0) * 1000
            func file() -> String {
                let url = params?["request"]?["url"]?.stringValue ?? params?["response"]?["url"]?.stringValue ?? ""
                return String(url.split(separator: "?")[0].split(separator: "/").last ?? "")
            }
            func first(_ name: String) { if marks[name] == nil { marks[name] = time } }
            switch event["method"]?.stringValue ?? "" {
            case "Network.requestWillBeSent":
                if params?["type"]?.stringValue == "Document" {
                    start = time
                    marks = [:]
                    framesSent = 0
                    framesReceived = 0
                } else {
                    first("\(file()) requested")
                }
            case "Network.responseReceived":
                if params?["type"]?.stringValue != "Document" { first("\(file()) response") }
            case "Network.webSocketWillSendHandshakeRequest": first("bridge socket: handshake request reported")
            case "Network.webSocketHandshakeResponseReceived": first("bridge socket: 101 reported")
            case "Network.webSocketFrameSent":
                framesSent += 1
                if framesSent == 1 { first("bridge socket: first frame sent") }
            case "Network.webSocketFrameReceived":
                framesReceived += 1
                if framesReceived <= 2 { first("bridge socket: frame \(framesReceived) received") }
            case "Page.domContentEventFired": first("DOMContentLoaded")
            case "Page.loadEventFired": first("load event")
            default: break
            }
        }
        guard keep, let start else { return }
        for (name, time) in marks { samples[name, default: []].append(time - start) }
    }

    /// The median of each step, earliest first.
    func report() -> [String] {
        samples.map { (name: $0.key, median: Latencies($0.value).percentile(0.5), count: $0.value.count) }
            .sorted { $0.median < $1.median }
            .map { String(format: "  %@: %.1f ms (%d loads)", $0.name, $0.median, $0.count) }
    }
}
