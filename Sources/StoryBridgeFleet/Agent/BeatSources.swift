import Foundation
import StoryBridge

/// Where a beat's sections come from: async reads of the host that already exist for the health
/// endpoint and the inspector (docs/design/FLEET.md §3.2). Each is given a budget by
/// ``BeatBuilder``; one that does not answer in time is sent as null. A source left nil is a
/// section that is not configured (null in every beat).
package struct BeatSources: Sendable {
    /// The decks served.
    package var decks: (@Sendable () async -> [Beat.Deck])?
    /// The viewers the host knows (the builder orders and caps the list).
    package var viewers: (@Sendable () async -> [Beat.Viewer])?
    /// The upload queue.
    package var analytics: (@Sendable () async -> Beat.Analytics?)?
    /// The scheduled sync.
    package var sync: (@Sendable () async -> Beat.Sync?)?
    /// Free disk.
    package var disk: (@Sendable () async -> Beat.Disk?)?
    /// Memory.
    package var memory: (@Sendable () async -> Beat.Memory?)?
    /// Health.
    package var health: (@Sendable () async -> Beat.Health?)?
    /// The schedule's current entry.
    package var schedule: (@Sendable () async -> Beat.ScheduleNow?)?
    /// `storybridge kiosk`'s state.
    package var kiosk: (@Sendable () async -> Beat.KioskStatus?)?
    /// The Prometheus figures.
    package var figures: (@Sendable () async -> [String: Double])?
    /// The newest checkpoint document of the host's audit log.
    package var checkpoint: (@Sendable () async -> JSONValue?)?
    /// Warnings and errors since the last beat (taken: the next call starts empty).
    package var log: (@Sendable () -> Beat.Log)?

    /// Sources; every one left out is null in the beat.
    package init() {}
}
