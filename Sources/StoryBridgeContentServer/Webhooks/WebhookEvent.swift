/// The events a webhook can be sent for (docs/design/FLEET.md §8.3): the vendor's presentation
/// events with its `EventId`s (6, 7, 8) and the hub's kiosk events (101–104; the vendor uses 1–8).
package enum WebhookEvent: String, Sendable, CaseIterable, Codable {
    case presentationCreate = "Presentation (Create)"
    case presentationUpdate = "Presentation (Update)"
    case presentationDelete = "Presentation (Delete)"
    case kioskOffline = "Kiosk (Offline)"
    case kioskOnline = "Kiosk (Online)"
    case kioskSyncFailed = "Kiosk (SyncFailed)"
    case kioskQueueOverLimit = "Kiosk (QueueOverLimit)"

    /// The `EventName` of the body and the `X-StoryBridge-Event` header.
    package var name: String { rawValue }

    /// The `EventId` of the body.
    package var id: Int {
        switch self {
        case .presentationCreate: 6
        case .presentationUpdate: 7
        case .presentationDelete: 8
        case .kioskOffline: 101
        case .kioskOnline: 102
        case .kioskSyncFailed: 103
        case .kioskQueueOverLimit: 104
        }
    }

    /// Whether the event comes from the fleet (and so needs `--fleet`).
    package var isKioskEvent: Bool { id > 100 }
}
