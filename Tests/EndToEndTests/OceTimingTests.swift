import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// A StoryCLM deck of the same two pages as the OCE fixture's first sequence (same markup, style
/// sheet and script), so the two timings differ only by the dialect's path.
private func storyCLMTwin() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-oce-twin-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("css"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("js"), withIntermediateDirectories: true)
    try Data(OceDeliveryFixture.page("index.html").utf8).write(to: root.appendingPathComponent("index.html"))
    try Data(OceDeliveryFixture.page("overview.html").utf8).write(to: root.appendingPathComponent("overview.html"))
    try Data("body { color: rgb(4, 5, 6); }\n".utf8).write(to: root.appendingPathComponent("css/deck.css"))
    try Data(OceDeliveryFixture.playerLibrary.utf8).write(to: root.appendingPathComponent("js/player.js"))
    return root
}

/// Issue #43 item 6's constraint: an OCE `CLMPlayer.gotoSlide`, from the call to the next slide's
/// load event, within 1.1x of a StoryCLM `go`. Measured in pairs (which goes first alternates)
/// in one headless Chromium tab against one host; the medians are printed and the median of the
/// pairs' ratios is held to 1.1 (docs/BENCHMARKS.md, "OCE gotoSlide against StoryCLM go").
/// Run on demand (`STORYBRIDGE_OCE_PAIRS=60`): with the other browser suites running beside it,
/// its minute of slide loads slowed them past their deadlines on the shared machine.
@Suite(
    "OCE gotoSlide against StoryCLM go", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["STORYBRIDGE_OCE_PAIRS"] != nil, "set STORYBRIDGE_OCE_PAIRS to measure"))
struct OceTimingTests {
    /// Milliseconds from the call (kept in sessionStorage across the load) to the load event's end.
    private static let elapsed =
        "(function(){var n=performance.getEntriesByType('navigation')[0];if(!n||!(n.loadEventEnd>0)){return null;}"
        + "return performance.timeOrigin+n.loadEventEnd-Number(sessionStorage.getItem('t0'));})()"

    @Test("gotoSlide to the next slide's load is within 1.1x of go (median of paired ratios)")
    func gotoSlideAgainstGo() async throws {
        let pairs = Int(ProcessInfo.processInfo.environment["STORYBRIDGE_OCE_PAIRS"] ?? "") ?? 60
        let warmUp = 5
        let oce = try {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-oce-timing-\(UUID().uuidString)")
            try OceDeliveryFixture.writeZips(in: root.appendingPathComponent("zips"))
            try DeliveryUnpacking.unpack(folder: root.appendingPathComponent("zips"), to: root.appendingPathComponent("deck"))
            return root.appendingPathComponent("deck")
        }()
        try await withBrowser(folders: [try storyCLMTwin(), oce]) { host, page in
            var storyclm: [Double] = []
            var gotoSlide: [Double] = []
            for round in 0..<(warmUp + pairs) {
                // Alternate which goes first, so a drift in the machine's load falls on both.
                for first in round % 2 == 0 ? [true, false] : [false, true] {
                    let ms =
                        first
                        ? try await timeSwitch(
                            page, from: host.baseURL + "/p/1/index.html", "index.html",
                            calling: "window.__storybridge.request('go', {slideName: 'overview.html', data: {}})", to: "overview.html")
                        : try await timeSwitch(
                            page, from: host.baseURL + "/p/2/Intro/01_welcome.html", "Intro/01_welcome.html",
                            calling: "CLMPlayer.gotoSlide(null, '02_overview.html', null)", to: "Intro/02_overview.html")
                    if round >= warmUp {
                        if first { storyclm.append(ms) } else { gotoSlide.append(ms) }
                    }
                }
            }
            func median(_ values: [Double]) -> Double {
                let sorted = values.sorted()
                return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            }
            func p90(_ values: [Double]) -> Double { values.sorted()[Int(Double(values.count - 1) * 0.9)] }
            let ratio = median(gotoSlide) / median(storyclm)
            // Each pair ran back to back: the median of the pairs' ratios cancels most of the
            // machine's drift (a shared, loaded machine moves both by tens of milliseconds).
            let pairedRatio = median(zip(gotoSlide, storyclm).map { $0 / $1 })
            print(
                String(
                    format:
                        "OCE gotoSlide vs StoryCLM go, %d pairs: go median %.2f ms (p90 %.2f), gotoSlide median %.2f ms (p90 %.2f), ratio of medians %.3f, median of paired ratios %.3f",
                    pairs, median(storyclm), p90(storyclm), median(gotoSlide), p90(gotoSlide), ratio, pairedRatio))
            #expect(
                pairedRatio <= 1.1,
                "gotoSlide median \(median(gotoSlide)) ms against go \(median(storyclm)) ms; median of paired ratios \(pairedRatio)")
        }
    }

    /// Opens `url` (its slide `slide`), runs `call`, and returns the milliseconds from the call to
    /// the load event's end of `target`.
    private func timeSwitch(_ page: BrowserPage, from url: String, _ slide: String, calling call: String, to target: String)
        async throws -> Double
    {
        try await page.navigate(to: url)
        try await page.waitForSlide(slide)
        try await page.evaluate("sessionStorage.setItem('t0', String(performance.timeOrigin + performance.now())); \(call); true")
        try await page.waitForSlide(target)
        return try await page.waitFor(Self.elapsed).doubleValue ?? 0
    }
}
