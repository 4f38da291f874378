import Foundation
import GRDB

/// `GET /v1/fleet/kiosks/{id}/history?hours=24` (docs/design/FLEET.md §7.1): a kiosk's state
/// changes, sync runs and per-minute figures of the last 1 to 168 hours, oldest first, from the
/// tables ``HistoryWriter`` writes (a minute appears once it has ended).
struct FleetHistoryView: Encodable, Sendable {
    /// One row of `state_change`.
    struct StateChange: Encodable, Sendable {
        var at: Date
        var from: String
        var to: String
        var reason: String
    }

    /// One row of `sync_run`; absent members are `null`.
    struct SyncRun: Encodable, Sendable {
        var at: Date
        var result: String?
        var exitStatus: Int?
        var summary: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(at, forKey: .at)
            try container.encode(result, forKey: .result)
            try container.encode(exitStatus, forKey: .exitStatus)
            try container.encode(summary, forKey: .summary)
        }

        private enum CodingKeys: String, CodingKey { case at, result, exitStatus, summary }
    }

    /// One row of `minute`: `minute` is the minute's start; absent figures are `null`.
    struct Minute: Encodable, Sendable {
        var minute: Date
        var beats: Int
        var queueMax: Int?
        var oldestAgeMax: Int?
        var viewersMax: Int?
        var freeDiskMin: Int64?
        var residentMax: Int64?
        var presence: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(minute, forKey: .minute)
            try container.encode(beats, forKey: .beats)
            try container.encode(queueMax, forKey: .queueMax)
            try container.encode(oldestAgeMax, forKey: .oldestAgeMax)
            try container.encode(viewersMax, forKey: .viewersMax)
            try container.encode(freeDiskMin, forKey: .freeDiskMin)
            try container.encode(residentMax, forKey: .residentMax)
            try container.encode(presence, forKey: .presence)
        }

        private enum CodingKeys: String, CodingKey {
            case minute, beats, queueMax, oldestAgeMax, viewersMax, freeDiskMin, residentMax, presence
        }
    }

    var stateChanges: [StateChange]
    var syncRuns: [SyncRun]
    var minutes: [Minute]

    /// The hours a history may cover.
    static let hours = 1...168

    /// The `hours` of a query: 24 when absent.
    static func hours(query: String?) throws(FleetQueryError) -> Int {
        guard let text = FleetFilter.pairs(query).last(where: { $0.0 == "hours" })?.1 else { return 24 }
        guard let hours = Int(text), Self.hours.contains(hours) else {
            throw .invalid("hours \"\(text)\" is not a whole number from \(Self.hours.lowerBound) to \(Self.hours.upperBound)")
        }
        return hours
    }

    /// The history of `deviceId` since `start`.
    static func read(_ deviceId: String, since start: Date, _ db: Database) throws -> FleetHistoryView {
        let changes = try Row.fetchAll(
            db, sql: "SELECT at, \"from\", \"to\", reason FROM state_change WHERE deviceId = ? AND at >= ? ORDER BY at, rowid",
            arguments: [deviceId, start]
        ).map { StateChange(at: $0["at"], from: $0["from"], to: $0["to"], reason: $0["reason"]) }
        let runs = try Row.fetchAll(
            db, sql: "SELECT at, result, exitStatus, summary FROM sync_run WHERE deviceId = ? AND at >= ? ORDER BY at",
            arguments: [deviceId, start]
        ).map { SyncRun(at: $0["at"], result: $0["result"], exitStatus: $0["exitStatus"], summary: $0["summary"]) }
        let minutes = try Row.fetchAll(
            db, sql: "SELECT * FROM minute WHERE deviceId = ? AND minute >= ? ORDER BY minute",
            arguments: [deviceId, MinuteAggregate.minute(of: start)]
        ).map { row in
            Minute(
                minute: Date(timeIntervalSince1970: TimeInterval((row["minute"] as Int64) * 60)), beats: row["beats"],
                queueMax: row["queueMax"], oldestAgeMax: row["oldestAgeMax"], viewersMax: row["viewersMax"],
                freeDiskMin: row["freeDiskMin"], residentMax: row["residentMax"], presence: row["presence"])
        }
        return FleetHistoryView(stateChanges: changes, syncRuns: runs, minutes: minutes)
    }
}
