import Foundation
import StoryBridgeFleet

/// One kiosk's figures over one Unix minute, as a row of table `minute` (docs/design/FLEET.md
/// §5.6): how many beats came, the largest queue, oldest record age, viewer count and resident
/// size, the smallest free disk, and the worst presence of the minute.
///
/// Two aggregates of the same kiosk and minute merge (``merge(_:)``): the database does the same
/// when a minute is written twice (a hub stopped mid-minute, then started again).
struct MinuteAggregate: Sendable, Equatable {
    /// The device.
    var deviceId: String
    /// Seconds since 1970 divided by 60, rounded down.
    var minute: Int64
    /// Beats received in the minute.
    var beats: Int = 0
    /// The largest analytics queue reported.
    var queueMax: Int?
    /// The largest age of the oldest queued record, in seconds.
    var oldestAgeMax: Int?
    /// The most viewers reported.
    var viewersMax: Int?
    /// The least free disk reported, in bytes.
    var freeDiskMin: Int64?
    /// The largest resident size reported, in bytes.
    var residentMax: Int64?
    /// The worst presence seen: `offline` over `late` over `online` over `new`.
    var presence: KioskPresence

    /// The minute `date` falls in.
    static func minute(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 60).rounded(.down))
    }

    /// An empty minute of `deviceId` with `presence`.
    init(deviceId: String, minute: Int64, presence: KioskPresence) {
        self.deviceId = deviceId
        self.minute = minute
        self.presence = presence
    }

    /// Counts `beat` in.
    mutating func add(_ beat: Beat) {
        beats += 1
        queueMax = Self.larger(queueMax, beat.analytics?.queued)
        oldestAgeMax = Self.larger(oldestAgeMax, beat.analytics?.oldestAgeSeconds)
        viewersMax = Self.larger(viewersMax, beat.viewers?.count)
        residentMax = Self.larger(residentMax, beat.memory?.residentBytes)
        if let free = beat.disk?.freeBytes { freeDiskMin = min(freeDiskMin ?? free, free) }
        presence = Self.worse(presence, .online)
    }

    /// Notes that the kiosk was `presence` during the minute.
    mutating func saw(_ presence: KioskPresence) {
        self.presence = Self.worse(self.presence, presence)
    }

    /// Adds `other` (the same kiosk and minute).
    mutating func merge(_ other: MinuteAggregate) {
        beats += other.beats
        queueMax = Self.larger(queueMax, other.queueMax)
        oldestAgeMax = Self.larger(oldestAgeMax, other.oldestAgeMax)
        viewersMax = Self.larger(viewersMax, other.viewersMax)
        residentMax = Self.larger(residentMax, other.residentMax)
        if let free = other.freeDiskMin { freeDiskMin = min(freeDiskMin ?? free, free) }
        presence = Self.worse(presence, other.presence)
    }

    /// How bad a presence is, for "the worst in the minute".
    static func rank(_ presence: KioskPresence) -> Int {
        switch presence {
        case .new: 0
        case .online: 1
        case .late: 2
        case .offline: 3
        }
    }

    /// The worse of two presences.
    static func worse(_ left: KioskPresence, _ right: KioskPresence) -> KioskPresence {
        rank(left) >= rank(right) ? left : right
    }

    private static func larger<T: Comparable>(_ left: T?, _ right: T?) -> T? {
        guard let right else { return left }
        guard let left else { return right }
        return max(left, right)
    }
}
