import Foundation
import StoryBridge
import StoryBridgeSync
import Testing

@Suite("serve --sync-every: sync inside serve", .serialized)
struct ServeSyncTests {
    @Test("a window holds HH:MM-HH:MM, may run over midnight, and names its next opening")
    func windows() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func at(_ hour: Int, _ minute: Int) -> Date {
            calendar.date(from: DateComponents(year: 2026, month: 11, day: 26, hour: hour, minute: minute))!
        }
        let night = try SyncWindow("01:00-05:00")
        #expect(night.contains(at(1, 0), calendar: calendar))
        #expect(night.contains(at(4, 59), calendar: calendar))
        #expect(!night.contains(at(5, 0), calendar: calendar))
        #expect(!night.contains(at(12, 0), calendar: calendar))
        #expect(night.nextOpening(after: at(12, 0), calendar: calendar) == at(1, 0).addingTimeInterval(86_400))
        #expect(night.nextOpening(after: at(2, 0), calendar: calendar) == at(2, 0))
        let overMidnight = try SyncWindow("22:30-06:00")
        #expect(overMidnight.contains(at(23, 0), calendar: calendar))
        #expect(overMidnight.contains(at(3, 0), calendar: calendar))
        #expect(!overMidnight.contains(at(12, 0), calendar: calendar))
        #expect(overMidnight.description == "22:30-06:00")
        for bad in ["1:00-5:00", "01:00", "25:00-05:00", "01:60-02:00", "night"] {
            #expect(throws: SyncWindow.ParseError.self, "\(bad)") { try SyncWindow(bad) }
        }
    }

    @Test("the schedule's waits stay within a tenth of the interval (capped at 5 minutes) and the first comes early")
    func scheduleJitter() {
        var random = SystemRandomNumberGenerator()
        let schedule = SyncSchedule(interval: .seconds(900))
        #expect(schedule.jitter == .seconds(90))
        var waits = Set<Duration>()
        for _ in 0..<200 {
            let wait = schedule.nextDelay(using: &random)
            #expect(wait >= .seconds(810) && wait <= .seconds(990))
            waits.insert(wait)
            let first = schedule.firstDelay(using: &random)
            #expect(first >= .zero && first <= .seconds(90))
        }
        #expect(waits.count > 100, "the waits are not spread")
        #expect(SyncSchedule(interval: .seconds(86_400)).jitter == .seconds(300))
    }

    @Test("serve --sync-every installs a published deck and a new revision of it without a separate sync")
    func serveSyncsOnItsOwn() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 3, payloadBytes: 200_000) }
        try await lab.withServe(["--port", "0", "--log-level", "info", "--no-watch", "--sync-every", "2s"]) { serve in
            do {
                try await SyncLab.waitUntil(seconds: 60) { (try? lab.installedTitle(3)) == "v1" }
                try lab.publish(id: 3, title: "v2", payloadBytes: 200_000)
                try await SyncLab.waitUntil(seconds: 60) { (try? lab.installedTitle(3)) == "v2" }
            } catch {
                serve.process.interrupt()
                let log = String(decoding: serve.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                Issue.record("serve's log: \(log.suffix(3000)); installed: \(String(describing: try? lab.installedTitle(3)))")
                throw error
            }
        }
        let record = try #require(SyncRunRecord.load(SyncPaths(lab.clientDirectory)))
        #expect(record.exitStatus == 0, "\(record.notes)")
        await lab.stopServer()
    }

    @Test("outside --sync-window the catalog syncs but no package downloads")
    func windowHoldsDownloads() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 3) }
        // A one-hour window starting two hours from now (local time).
        let parts = Calendar.current.dateComponents([.hour, .minute], from: Date().addingTimeInterval(7200))
        let start = String(format: "%02d:%02d", parts.hour!, parts.minute!)
        let endParts = Calendar.current.dateComponents([.hour, .minute], from: Date().addingTimeInterval(10_800))
        let end = String(format: "%02d:%02d", endParts.hour!, endParts.minute!)
        try await lab.withServe(
            ["--port", "0", "--log-level", "warning", "--no-watch", "--sync-every", "1s", "--sync-window", "\(start)-\(end)"]
        ) { _ in
            try await SyncLab.waitUntil(seconds: 60) { SyncRunRecord.load(SyncPaths(lab.clientDirectory)) != nil }
        }
        #expect(try await lab.catalog()[3] != nil)
        #expect(try await lab.catalog()[3]?.state != .ready)
        #expect(try lab.installedTitle(3) == nil)
        await lab.stopServer()
    }

    @Test("--sync-window alone, or a bad window, is refused with a clear message")
    func refusals() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 3) }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let alone = try await lab.cli(["serve", "--sync-window", "01:00-05:00"])
        #expect(alone.status != 0)
        #expect(alone.errors.contains("go with --sync-every"), "\(alone.errors)")
        let bad = try await lab.cli(["serve", "--sync-every", "15m", "--sync-window", "1-5"])
        #expect(bad.status != 0)
        #expect(bad.errors.contains("is not a window of the day"), "\(bad.errors)")
        await lab.stopServer()
    }
}
