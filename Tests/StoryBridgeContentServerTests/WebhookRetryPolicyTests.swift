import Foundation
import StoryBridgeContentServer
import StoryBridgeFleet
import Testing

/// The plain rules behind the webhooks (docs/design/FLEET.md §8.3, §8.4): what an attempt's
/// answer means, and which kiosk transitions and beats raise events.
@Suite("Webhooks: retry policy and kiosk alert rules")
struct WebhookRetryPolicyTests {
    @Test(
        "2xx delivered; no answer, 408, 429, 5xx retried at 10 s … 4 h; other answers and the 8th attempt fail; Retry-After when longer, up to 4 h"
    )
    func verdicts() {
        let waits = (1...7).map { WebhookRetryPolicy.verdict(status: 500, attempts: $0, retryAfter: nil, jitter: 1) }
        let expected = ([10, 60, 300, 900, 3600, 7200, 14_400] as [TimeInterval]).map { WebhookRetryPolicy.Verdict.retry(after: $0) }
        #expect(waits == expected)
        #expect(WebhookRetryPolicy.verdict(status: 503, attempts: 8, retryAfter: nil, jitter: 1) == .failed)
        for status in [200, 201, 204, 299] {
            #expect(WebhookRetryPolicy.verdict(status: status, attempts: 1, retryAfter: nil, jitter: 1) == .delivered)
        }
        for status in [nil, 408, 429, 500, 502, 599] as [Int?] {
            #expect(
                WebhookRetryPolicy.verdict(status: status, attempts: 1, retryAfter: nil, jitter: 1) == .retry(after: 10),
                "\(String(describing: status))")
        }
        for status in [301, 400, 401, 403, 404, 410, 422] {
            #expect(WebhookRetryPolicy.verdict(status: status, attempts: 1, retryAfter: nil, jitter: 1) == .failed, "\(status)")
        }
        #expect(WebhookRetryPolicy.verdict(status: 429, attempts: 1, retryAfter: 120, jitter: 1) == .retry(after: 120))
        #expect(WebhookRetryPolicy.verdict(status: 429, attempts: 3, retryAfter: 120, jitter: 1) == .retry(after: 300))
        #expect(WebhookRetryPolicy.verdict(status: 503, attempts: 1, retryAfter: 99_999, jitter: 1) == .retry(after: 14_400))
        #expect(WebhookRetryPolicy.verdict(status: 500, attempts: 2, retryAfter: nil, jitter: 1.2) == .retry(after: 72))
    }

    @Test("kiosk alert rules: offline and offline → online only; sync failing from none; queue over a limit once until under 80 %")
    func alertRules() {
        var rules = KioskAlertRules(limits: .init(records: 100, oldestAgeSeconds: 1000))
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        func transition(_ from: KioskPresence, _ to: KioskPresence) -> KioskPresenceMachine.Transition {
            KioskPresenceMachine.Transition(from: from, to: to, at: at, reason: "test")
        }
        #expect(rules.event(for: transition(.online, .offline)) == .kioskOffline)
        #expect(rules.event(for: transition(.late, .offline)) == .kioskOffline)
        #expect(rules.event(for: transition(.offline, .online)) == .kioskOnline)
        #expect(rules.event(for: transition(.late, .online)) == nil)
        #expect(rules.event(for: transition(.new, .online)) == nil)
        #expect(rules.event(for: transition(.online, .late)) == nil)

        func beat(queued: Int, age: Int? = nil, failing: Bool = false) -> Beat {
            var beat = Beat(seq: 1, sentAt: at, instance: "i", uptimeSeconds: 1, version: "0", name: "k")
            beat.analytics = Beat.Analytics(queued: queued, oldestAgeSeconds: age)
            beat.sync = Beat.Sync(
                lastRunAt: at, result: failing ? "failed" : "ok", exitStatus: failing ? 69 : 0, summary: nil,
                failingSince: failing ? at : nil, nextRunAt: nil)
            return beat
        }
        #expect(rules.events(for: beat(queued: 0, failing: true), previous: nil, deviceId: "a") == [.kioskSyncFailed])
        #expect(rules.events(for: beat(queued: 0, failing: true), previous: beat(queued: 0, failing: true), deviceId: "a") == [])
        #expect(rules.events(for: beat(queued: 0, failing: true), previous: beat(queued: 0), deviceId: "a") == [.kioskSyncFailed])
        #expect(rules.events(for: beat(queued: 100), previous: nil, deviceId: "a") == [.kioskQueueOverLimit])
        #expect(rules.events(for: beat(queued: 200), previous: nil, deviceId: "a") == [])
        #expect(rules.events(for: beat(queued: 100), previous: nil, deviceId: "b") == [.kioskQueueOverLimit], "per kiosk")
        #expect(rules.events(for: beat(queued: 85), previous: nil, deviceId: "a") == [], "not under 80 %: not armed again")
        #expect(rules.events(for: beat(queued: 120), previous: nil, deviceId: "a") == [])
        #expect(rules.events(for: beat(queued: 79), previous: nil, deviceId: "a") == [])
        #expect(rules.events(for: beat(queued: 5, age: 1000), previous: nil, deviceId: "a") == [.kioskQueueOverLimit], "the age limit")
        #expect(rules.events(for: beat(queued: 5, age: 799), previous: nil, deviceId: "a") == [])
        #expect(rules.events(for: beat(queued: 100), previous: nil, deviceId: "a") == [.kioskQueueOverLimit])
    }
}
