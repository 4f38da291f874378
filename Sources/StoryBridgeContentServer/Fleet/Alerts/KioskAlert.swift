import Foundation
import StoryBridge
import StoryBridgeFleet

/// A kiosk event as the ``FleetRegistry`` raises it, with what its webhook's `Data` says
/// (docs/design/FLEET.md §8.3); ``KioskWebhooks`` adds the device's name and hub labels.
package struct KioskAlert: Sendable {
    /// The event.
    package var event: WebhookEvent
    /// When the hub raised it.
    package var at: Date
    /// The device id.
    package var deviceId: String
    /// The host id of its last hello.
    package var hostId: String?
    /// The kiosk's own labels (the hub's go over them).
    package var labels: [String: String]
    /// Since when the kiosk is in its presence.
    package var since: Date
    /// When its last beat arrived.
    package var lastBeatAt: Date?
    /// Why: the transition's reason, or `beat`.
    package var reason: String
    /// `Kiosk (Online)`: how long it was offline.
    var offlineSeconds: Int?
    /// `Kiosk (Online)`: how long the kiosk itself could not reach the hub (its `hubUnreachable`).
    var hubUnreachableSeconds: Int?
    /// `Kiosk (SyncFailed)`: the beat's sync section.
    package var sync: Beat.Sync?
    /// `Kiosk (QueueOverLimit)`: the beat's analytics section.
    package var analytics: Beat.Analytics?
}

/// A kiosk event's `Data`, in the vendor's capitalised member names: `{Id, HostId, Name, Labels,
/// Since, LastBeatAt, Reason}`, with `OfflineSeconds` and `HubUnreachableSeconds` (Online),
/// `Sync` (SyncFailed) or `Analytics` (QueueOverLimit).
struct KioskWebhookData: Encodable, Sendable {
    var alert: KioskAlert
    /// The device's name on the hub.
    var name: String
    /// The kiosk's labels with the hub's over them.
    var labels: [String: String]

    private enum Key: String, CodingKey {
        case id = "Id", hostId = "HostId", name = "Name", labels = "Labels", since = "Since", lastBeatAt = "LastBeatAt"
        case reason = "Reason", offlineSeconds = "OfflineSeconds", hubUnreachableSeconds = "HubUnreachableSeconds"
        case sync = "Sync", analytics = "Analytics"
        case lastRunAt = "LastRunAt", result = "Result", exitStatus = "ExitStatus", summary = "Summary"
        case failingSince = "FailingSince", nextRunAt = "NextRunAt", queued = "Queued", oldestAgeSeconds = "OldestAgeSeconds"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(alert.deviceId, forKey: .id)
        try container.encode(alert.hostId, forKey: .hostId)
        try container.encode(name, forKey: .name)
        try container.encode(labels, forKey: .labels)
        try container.encode(alert.since, forKey: .since)
        try container.encode(alert.lastBeatAt, forKey: .lastBeatAt)
        try container.encode(alert.reason, forKey: .reason)
        switch alert.event {
        case .kioskOnline:
            try container.encode(alert.offlineSeconds, forKey: .offlineSeconds)
            try container.encode(alert.hubUnreachableSeconds, forKey: .hubUnreachableSeconds)
        case .kioskSyncFailed:
            var sync = container.nestedContainer(keyedBy: Key.self, forKey: .sync)
            try sync.encode(alert.sync?.lastRunAt, forKey: .lastRunAt)
            try sync.encode(alert.sync?.result, forKey: .result)
            try sync.encode(alert.sync?.exitStatus, forKey: .exitStatus)
            try sync.encode(alert.sync?.summary, forKey: .summary)
            try sync.encode(alert.sync?.failingSince, forKey: .failingSince)
            try sync.encode(alert.sync?.nextRunAt, forKey: .nextRunAt)
        case .kioskQueueOverLimit:
            var analytics = container.nestedContainer(keyedBy: Key.self, forKey: .analytics)
            try analytics.encode(alert.analytics?.queued, forKey: .queued)
            try analytics.encode(alert.analytics?.oldestAgeSeconds, forKey: .oldestAgeSeconds)
        default:
            break
        }
    }
}

/// Hands the registry's kiosk events to the ``WebhookDispatcher``, which looks up the device's
/// name and hub labels, builds the envelope and queues it in its own loop, in order: the registry
/// only calls ``send(_:)``, which returns at once.
package struct KioskWebhooks: Sendable {
    let store: DeviceStore
    let dispatcher: WebhookDispatcher

    /// Kiosk events of `store`'s devices, sent by `dispatcher`.
    package init(store: DeviceStore, dispatcher: WebhookDispatcher) {
        self.store = store
        self.dispatcher = dispatcher
    }

    /// Hands `alert`'s webhook to the dispatcher, which builds and queues it in order.
    package func send(_ alert: KioskAlert) {
        dispatcher.submit { [store] in
            let devices = (try? await BlockingIO.run { () throws(HubStoreError) in try store.list() }) ?? []
            let device = devices.first { $0.id == alert.deviceId }
            let data = KioskWebhookData(
                alert: alert, name: device?.name ?? alert.deviceId,
                labels: alert.labels.merging(device?.labels ?? [:]) { _, hub in hub })
            guard let body = try? WebhookEnvelope(event: alert.event, created: alert.at, data: data).body() else { return nil }
            return (alert.event, body)
        }
    }
}
