import Foundation
import StoryBridgeFleet

/// Which kiosk events a presence transition or a beat raises (docs/design/FLEET.md §8.3), as a
/// plain state machine kept by the ``FleetRegistry``:
///
/// - `Kiosk (Offline)`: presence → `offline`;
/// - `Kiosk (Online)`: `offline` → `online` (not `late` → `online`, nor `new` → `online`);
/// - `Kiosk (SyncFailed)`: a beat's `sync.failingSince` is set where the kiosk's previous beat had
///   none (or there was no previous beat);
/// - `Kiosk (QueueOverLimit)`: `analytics.queued` ≥ the records limit or `oldestAgeSeconds` ≥ the
///   age limit while armed; armed again once both are under 80 % of their limits. Every kiosk is
///   armed when the hub starts.
package struct KioskAlertRules: Sendable {
    /// The queue's limits.
    package var limits: WebhookConfiguration.QueueAlert
    /// Kiosks whose queue alert has fired and is not armed again.
    private var fired: Set<String> = []

    /// Rules with `limits`.
    package init(limits: WebhookConfiguration.QueueAlert) { self.limits = limits }

    /// The event `transition` raises, if any.
    package func event(for transition: KioskPresenceMachine.Transition) -> WebhookEvent? {
        if transition.to == .offline, transition.from != .offline { return .kioskOffline }
        if transition.from == .offline, transition.to == .online { return .kioskOnline }
        return nil
    }

    /// The events `beat` of `deviceId` raises, given the kiosk's `previous` beat.
    package mutating func events(for beat: Beat, previous: Beat?, deviceId: String) -> [WebhookEvent] {
        var events: [WebhookEvent] = []
        if beat.sync?.failingSince != nil, previous?.sync?.failingSince == nil { events.append(.kioskSyncFailed) }
        if let analytics = beat.analytics {
            let age = analytics.oldestAgeSeconds ?? 0
            if analytics.queued >= limits.records || age >= limits.oldestAgeSeconds {
                if fired.insert(deviceId).inserted { events.append(.kioskQueueOverLimit) }
            } else if Double(analytics.queued) < 0.8 * Double(limits.records), Double(age) < 0.8 * Double(limits.oldestAgeSeconds) {
                fired.remove(deviceId)
            }
        }
        return events
    }
}
