import Foundation
import StoryBridge
import StoryBridgeTesting

/// `storybridge-bench long-run [COUNT]`: the memory of a host that runs for weeks. COUNT page loads
/// (100,000 by default) from distinct tabs, each a new viewer that connects over a real WebSocket,
/// sends two commands and goes; the host's clock moves one second per page load and the idle
/// sweep runs every simulated minute (as `serve`'s sweep service would), so viewers idle for 30
/// minutes leave memory and their sessions end by timeout. Prints the process's resident memory
/// after the first 1,000 page loads and after all of them (target: within 20 MB).
struct LongRunBenchmark {
    var pageLoads = 100_000

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-bench-longrun-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let presentation = folder.appendingPathComponent("presentation")
        try FileManager.default.createDirectory(at: presentation, withIntermediateDirectories: true)
        try "<html><body>slide</body></html>".write(
            to: presentation.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        let clock = ManualHostClock()
        let lifetime = ViewerLifetime(idleTime: .seconds(30 * 60), sessionTimeout: .seconds(30 * 60))
        let host = try await TestHost.start(
            presentationFolders: [presentation], dataDirectory: DataDirectory(folder.appendingPathComponent("data")), clock: clock,
            lifetime: lifetime)
        let started = ContinuousClock.now
        var afterFirstThousand = Double.nan
        print("page loads | RSS MB | viewers in memory | sessions ended by timeout | elapsed s")
        var timedOut = 0
        var inMemory = 0
        for index in 1...pageLoads {
            let page = try await host.connectViewer(slide: "index.html", viewerId: "tab-\(index)")
            _ = await page.nextEvent(named: "hello")
            _ = try await page.request("getUserInfo")
            _ = try await page.request("setCustomEvent", data: ["key": "visit", "value": .int(index)])
            await page.close()
            clock.advance(by: .seconds(1))
            if index % 60 == 0 {
                let report = await host.runtime.sweepIdle()
                timedOut += report.sessionsTimedOut
                inMemory = report.viewersInMemory
            }
            if index == 1_000 { afterFirstThousand = residentMB() }
            if index % 10_000 == 0 || index == 1_000 || index == pageLoads {
                print(
                    String(
                        format: "%10d | %6.1f | %17d | %25d | %.0f", index, residentMB(), inMemory, timedOut,
                        seconds(ContinuousClock.now - started)))
            }
        }
        let final = residentMB()
        await host.stop()
        print(
            String(
                format: "RSS after 1,000 page loads: %.1f MB; after %d: %.1f MB; growth %.1f MB (target <= 20 MB)", afterFirstThousand,
                pageLoads, final, final - afterFirstThousand))
    }

    private func residentMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return .nan }
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan) / 1024
    }
}
