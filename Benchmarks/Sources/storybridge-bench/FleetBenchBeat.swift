import Foundation
import StoryBridge
import StoryBridgeFleet

/// The fixed sources of a simulated kiosk's beats (docs/design/FLEET.md §11): what a busy `serve`
/// reports, so that each beat has a realistic size: 5 decks, 2 viewers, a failed scheduled sync
/// with its summary, 3 log entries, the figures a `serve` sends, 8 labels; disk, memory and health
/// as `serve` fills them. Schedule, `storybridge kiosk` and checkpoint are null (not configured).
enum FleetBenchBeat {
    /// The kiosk's 8 labels.
    static func labels(index: Int) -> [String: String] {
        [
            "site": ["berlin", "paris", "madrid", "vienna"][index % 4], "floor": String(index % 5), "room": "hall-\(index % 12)",
            "region": "emea", "customer": "cardio-pharma", "rollout": "wave-\(index % 3)", "hardware": "nuc-11",
            "owner": "field-it",
        ]
    }

    /// The builder of kiosk number `index`'s beats, on the system clock.
    static func builder(index: Int, name: String) -> BeatBuilder {
        let started = Date().addingTimeInterval(-11_959)
        var sources = BeatSources()
        sources.decks = {
            [
                Beat.Deck(id: 12, name: "Cardio 2027", revision: 7),
                Beat.Deck(id: 13, name: "Training", revision: 3, pinnedRevision: 3, state: "update available"),
                Beat.Deck(id: 14, name: "Hypertension — patient journeys", revision: 21),
                Beat.Deck(id: 15, name: "Lipids in practice", revision: 4),
                Beat.Deck(id: 16, name: "Congress 2026 highlights", revision: 2, state: "downloading"),
            ]
        }
        sources.viewers = {
            [
                Beat.Viewer(
                    viewer: "v-8c2d41f0-\(index)", connected: true, presentation: 12, slide: "products.html",
                    since: started.addingTimeInterval(11_000)),
                Beat.Viewer(
                    viewer: "v-19aa07c3-\(index)", connected: false, presentation: 14, slide: "study-results.html",
                    since: started.addingTimeInterval(9_500)),
            ]
        }
        sources.analytics = { Beat.Analytics(queued: 14, oldestAgeSeconds: 312) }
        sources.sync = {
            let now = Date()
            return Beat.Sync(
                lastRunAt: now.addingTimeInterval(-900), result: "failed", exitStatus: 69,
                summary: "the server could not be reached: connection refused (content.example.lan:443)",
                failingSince: now.addingTimeInterval(-2_700), nextRunAt: now.addingTimeInterval(60))
        }
        sources.disk = { Beat.Disk(freeBytes: 41_234_567_168, minimumFreeBytes: 524_288_000) }
        sources.memory = { Beat.Memory(residentBytes: 61_440_000, availableBytes: 1_523_000_000) }
        sources.health = {
            Beat.Health(status: "unhealthy", problems: ["sync failing since 45 min (longer than 3600 s)"])
        }
        sources.figures = {
            [
                "storybridge_connected_viewers": 1, "storybridge_requests_total": 12_040, "storybridge_refused_requests_total": 0,
                "storybridge_upload_queue_depth": 14, "storybridge_upload_set_aside": 0, "storybridge_upload_dropped_records": 0,
                "storybridge_upload_failures_total": 2, "storybridge_storage_failing": 0,
            ]
        }
        sources.log = {
            let now = Date()
            return Beat.Log(entries: [
                Beat.LogEntry(
                    at: now.addingTimeInterval(-900), level: "warning",
                    message: "scheduled sync: the server could not be reached: connection refused"),
                Beat.LogEntry(
                    at: now.addingTimeInterval(-300), level: "warning", message: "upload: the collector answered 503; retrying in 60 s"),
                Beat.LogEntry(
                    at: now.addingTimeInterval(-30), level: "error", message: "viewer v-19aa07c3: socket closed without a goodbye", count: 2
                ),
            ])
        }
        let identity = BeatBuilder.Identity(
            instance: UUID().uuidString.lowercased(), version: StoryBridgeVersion.current, name: name, labels: labels(index: index))
        return BeatBuilder(identity: identity, sources: sources, clock: SystemHostClock())
    }
}
