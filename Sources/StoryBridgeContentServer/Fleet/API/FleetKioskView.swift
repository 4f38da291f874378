import Foundation
import StoryBridgeFleet

/// One kiosk as `GET /v1/fleet` and `/v1/fleet/kiosks/{id}` show it (docs/design/FLEET.md §7.1):
/// the device (id, name, hub labels, host id), its presence and since when, and the sections of
/// its last beat. Every member is written, `null` when unknown; `lastBeat` and `hello` only in the
/// detail.
struct FleetKioskView: Encodable, Sendable {
    var id: String
    var hostId: String?
    /// The device's name on the hub (what `device add` gave and `device revoke` takes).
    var name: String
    /// The name the kiosk gives itself (`--fleet-name`), when it has reported one.
    var reportedName: String?
    /// The kiosk's own labels with the hub's over them.
    var labels: [String: String]
    /// `new`, `online`, `late`, `offline` or `revoked`.
    var presence: String
    var since: Date
    var lastBeatAt: Date?
    var intervalSeconds: Int?
    var version: String?
    var decks: [Beat.Deck]?
    var viewers: Beat.Viewers?
    var analytics: Beat.Analytics?
    var sync: Beat.Sync?
    var schedule: Beat.ScheduleNow?
    var kiosk: Beat.KioskStatus?
    var metricsURL: String?
    /// When the hub stored the kiosk's last screenshot (the registry's copy of
    /// `kiosk_state.lastScreenshotAt`), null when it has none.
    var lastScreenshotAt: Date?
    /// The detail's whole last beat and hello (nil in the list).
    var detail: (lastBeat: Beat?, hello: KioskHello?)?

    /// The view of `device` with what the registry knows of it (`kiosk`, nil when it has not
    /// been seen since the hub started and was not saved).
    init(device: Device, kiosk: FleetRegistry.Kiosk?, withDetail: Bool) {
        let beat = kiosk?.lastBeat
        let hello = kiosk?.hello
        id = device.id
        hostId = device.hostId
        name = device.name
        reportedName = beat?.name ?? hello?.name
        labels = (beat?.labels ?? hello?.labels ?? [:]).merging(device.labels) { _, hub in hub }
        if device.revokedAt == nil, let kiosk {
            presence = kiosk.machine.presence.rawValue
            since = kiosk.machine.since
        } else {
            presence = device.state
            since = device.since
        }
        lastBeatAt = kiosk?.lastBeatAt
        intervalSeconds = hello?.intervalSeconds
        version = beat?.version ?? hello?.version
        decks = beat?.decks
        viewers = beat?.viewers
        analytics = beat?.analytics
        sync = beat?.sync
        schedule = beat?.schedule
        self.kiosk = beat?.kiosk
        metricsURL = hello?.metricsURL
        lastScreenshotAt = kiosk?.lastScreenshotAt
        detail = withDetail ? (beat, hello) : nil
    }

    private enum CodingKeys: String, CodingKey {
        case id, hostId, name, reportedName, labels, presence, since, lastBeatAt, intervalSeconds, version, decks, viewers,
            analytics, sync, schedule, kiosk, metricsURL, lastScreenshotAt, lastBeat, hello
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(hostId, forKey: .hostId)
        try container.encode(name, forKey: .name)
        try container.encode(reportedName, forKey: .reportedName)
        try container.encode(labels, forKey: .labels)
        try container.encode(presence, forKey: .presence)
        try container.encode(since, forKey: .since)
        try container.encode(lastBeatAt, forKey: .lastBeatAt)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(version, forKey: .version)
        try container.encode(decks, forKey: .decks)
        try container.encode(viewers, forKey: .viewers)
        try container.encode(analytics, forKey: .analytics)
        try container.encode(sync, forKey: .sync)
        try container.encode(schedule, forKey: .schedule)
        try container.encode(kiosk, forKey: .kiosk)
        try container.encode(metricsURL, forKey: .metricsURL)
        try container.encode(lastScreenshotAt, forKey: .lastScreenshotAt)
        if let detail {
            try container.encode(detail.lastBeat, forKey: .lastBeat)
            try container.encode(detail.hello, forKey: .hello)
        }
    }
}
