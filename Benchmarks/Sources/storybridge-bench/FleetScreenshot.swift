import Foundation
import StoryBridge
import StoryBridgeTesting

/// `storybridge-bench fleet --screenshot FILE`: the picture of `/fleet` in docs/KIOSK.md, taken
/// from a real hub with real kiosk sockets (the benchmark's own) in different states: three
/// beating (`online`), one that stopped two intervals ago (`late`), one that stopped longer ago
/// (`offline`), one added but never connected (`new`). The page shows no token or host key.
struct FleetScreenshot {
    let file: URL

    func run() async throws {
        let data = try FleetHubChild.makeDataFolder()
        defer { try? FileManager.default.removeItem(at: data) }
        let names = ["cafeteria", "lobby-east", "lobby-west", "reception", "training-room", "warehouse-demo"]
        let tokens = try await FleetHubChild.addDevices(names, dataFolder: data)
        let hub = try await FleetHubChild.start(dataFolder: data)
        defer { hub.process.kill() }
        let interval = Duration.seconds(5)
        let begin = ContinuousClock.now + .milliseconds(500)
        let sent = FleetBeatLog()
        // Index in `names` → when its kiosk stops beating (the last one never connects).
        let ends: [Int: ContinuousClock.Instant] = [
            0: begin + .seconds(120), 1: begin + .seconds(120), 2: begin + .seconds(4), 3: begin + .seconds(120), 4: begin + .seconds(14),
        ]
        let port = hub.port
        let kiosks = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, end) in ends {
                    let kiosk = FleetBenchKiosk(index: index, name: names[index], token: tokens[index], port: port, interval: interval)
                    group.addTask { try await kiosk.run(firstBeat: begin + .milliseconds(200 * index), end: end, sent: sent) }
                }
                try await group.waitForAll()
            }
        }
        defer { kiosks.cancel() }
        let browser = try await HeadlessChromium.launch()
        try await browser.closingAfter { browser in
            let probe = try await FleetDashboardProbe.open(base: hub.base, browser: browser)
            let page = probe.page
            try await page.navigate(to: "\(hub.base)/fleet")
            func row(_ index: Int, _ presence: String) -> String {
                "(function(){var r=[].find.call(document.querySelectorAll('#kiosks tbody tr'),function(r){return r.cells[1].textContent===\(JSONValue.string(names[index]).jsonString());});return !!r&&r.dataset.presence==='\(presence)';})()"
            }
            try await page.waitFor(
                [row(0, "online"), row(1, "online"), row(2, "offline"), row(3, "online"), row(4, "late"), row(5, "new")].joined(
                    separator: " && "), timeout: .seconds(60))
            let height = try await page.evaluate("document.documentElement.scrollHeight").intValue ?? 400
            try await page.devTools.send(
                "Emulation.setDeviceMetricsOverride",
                ["width": .int(1280), "height": .int(min(900, height + 16)), "deviceScaleFactor": .int(1), "mobile": .bool(false)])
            let image = try await page.screenshot()
            let text = try await page.evaluate("document.body.innerText").stringValue ?? ""
            for token in tokens where text.contains(token) || text.contains(String(token.suffix(43))) {
                throw BenchmarkFailure("the dashboard shows a device token; no screenshot written")
            }
            try image.write(to: file)
            print("wrote \(file.path) (\(image.count) bytes): \(text.split(separator: "\n").first ?? "")")
        }
    }
}
