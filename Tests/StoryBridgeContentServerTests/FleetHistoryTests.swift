import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// The hub's history (docs/design/FLEET.md §5.6): beats from a real kiosk socket end up in every
/// table of a real hub.sqlite, and the retention deletes what is older than 24 hours (beats) and
/// 7 days (the rest) on the injected clock.
@Suite("Fleet hub: history")
struct FleetHistoryTests {
    /// A Unix minute's start, so that the test knows which minute each beat falls in.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// How many rows `table` holds.
    private func count(_ database: HubDatabase, _ table: String) async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    /// A beat numbered `seq` with a queue of `queued`, `viewers` viewers and, when `syncAt` is
    /// given, a failed sync run at that time.
    static func beat(_ seq: Int, queued: Int, viewers: Int = 1, freeBytes: Int64 = 5_000, syncAt: Date? = nil) -> Beat {
        Beat(
            seq: seq, sentAt: start, instance: "i", uptimeSeconds: seq, version: "0.1.0", name: "lobby-1",
            viewers: Beat.Viewers(count: viewers, list: []),
            analytics: Beat.Analytics(queued: queued, oldestAgeSeconds: queued * 10),
            sync: syncAt.map {
                Beat.Sync(lastRunAt: $0, result: "failed", exitStatus: 69, summary: "unreachable", failingSince: $0, nextRunAt: nil)
            },
            disk: Beat.Disk(freeBytes: freeBytes, minimumFreeBytes: 100),
            memory: Beat.Memory(residentBytes: Int64(seq) * 1000, availableBytes: 1))
    }

    @Test(
        "beats from a real kiosk connection: a row per beat, the last beat, a state change, one row per sync run, the minute once it ended")
    func rowsPerTable() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Self.start)
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (device, token) = try store.add(name: "lobby-1", now: clock.now)
        try await lab.withFleetHub(clock: clock) { hub, running, _ in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text, interval: 120)
            let firstRun = Self.start.addingTimeInterval(-600)
            try await kiosk.beat(Self.beat(1, queued: 5, viewers: 2, freeBytes: 7_000, syncAt: firstRun))
            try await kiosk.beat(Self.beat(2, queued: 9, viewers: 1, freeBytes: 6_000, syncAt: firstRun))
            try await kiosk.beat(Self.beat(3, queued: 7, viewers: 0, freeBytes: 8_000, syncAt: firstRun.addingTimeInterval(300)))
            await hub.history.flush()
            let database = hub.history.database
            try await eventually("three beats written") { try await count(database, "beat") == 3 }
            #expect(try await count(database, "sync_run") == 2, "a run is written once, however many beats report it")
            #expect(try await count(database, "state_change") == 1)
            #expect(try await count(database, "minute") == 0, "the minute under way is not written")
            let lastBeat = try await database.pool.read { db in
                try String.fetchOne(db, sql: "SELECT lastBeat FROM kiosk_state WHERE deviceId = ?", arguments: [device.id])
            }
            #expect(lastBeat?.contains("\"seq\":3") == true)

            // The minute ends: its row has the extremes of the three beats.
            clock.advance(by: .seconds(60))
            await hub.history.flush()
            try await eventually("the minute written") { try await count(database, "minute") == 1 }
            let minute = try database.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM minute") }
            #expect(minute?["deviceId"] == device.id)
            #expect(minute?["minute"] == Int64(1_800_000_000 / 60))
            #expect(minute?["beats"] == 3)
            #expect(minute?["queueMax"] == 9)
            #expect(minute?["oldestAgeMax"] == 90)
            #expect(minute?["viewersMax"] == 2)
            #expect(minute?["freeDiskMin"] == Int64(6_000))
            #expect(minute?["residentMax"] == Int64(3_000))
            #expect(minute?["presence"] == "online")
            let runs = try database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT result, exitStatus, summary FROM sync_run ORDER BY at")
            }
            #expect(runs.map { $0["exitStatus"] as Int } == [69, 69])
            #expect(runs.map { $0["summary"] as String } == ["unreachable", "unreachable"])
            kiosk.disconnect()
            _ = try await kiosk.closeFrame()
        }
    }

    @Test("retention on the injected clock: beats go after 24 h, minutes, state changes and sync runs after 7 days, in batches")
    func retention() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Self.start)
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (device, _) = try store.add(name: "lobby-1", now: clock.now)
        var retention = HistoryWriter.Retention()
        retention.batch = 2
        let writer = HistoryWriter(database: store.database, clock: clock, retention: retention, logger: Logger(label: "test"))
        for seq in 1...5 {
            let beat = Self.beat(seq, queued: seq, syncAt: Self.start.addingTimeInterval(Double(seq)))
            writer.record(
                beat: beat, json: try FleetWire.encode(.beat(beat)), deviceId: device.id,
                receivedAt: clock.now.addingTimeInterval(Double(seq)))
        }
        writer.record(
            KioskPresenceMachine.Transition(from: .new, to: .online, at: clock.now, reason: "beat"), deviceId: device.id)
        await writer.flush(everything: true)
        let database = store.database
        #expect(try await count(database, "beat") == 5)
        #expect(try await count(database, "sync_run") == 5)
        #expect(try await count(database, "minute") == 1)
        #expect(try await count(database, "state_change") == 1)

        // 23 h later nothing goes; 25 h later the beats go, in batches of 2, and nothing else.
        clock.advance(by: .seconds(23 * 3600))
        #expect(await writer.applyRetention() == HistoryWriter.Deleted())
        clock.advance(by: .seconds(2 * 3600))
        #expect(await writer.applyRetention() == HistoryWriter.Deleted(beats: 5))
        #expect(try await count(database, "beat") == 0)
        #expect(try await count(database, "sync_run") == 5)

        // 8 days after the beats: the rest goes too; the device and its current state stay.
        clock.advance(by: .seconds(7 * 86_400 - 25 * 3600 + 86_400))
        #expect(await writer.applyRetention() == HistoryWriter.Deleted(minutes: 1, stateChanges: 1, syncRuns: 5))
        #expect(try await count(database, "device") == 1)
        #expect(try await count(database, "kiosk_state") == 1)
    }
}
