import Foundation
import StoryBridge
import StoryBridgeFleet
import StoryBridgeTesting
import Synchronization
import Testing

/// ``BeatBuilder`` over fixed sources, on a ``ManualHostClock``.
@Suite("Beat builder")
struct BeatBuilderTests {
    static let identity = BeatBuilder.Identity(instance: "i-1", version: "0.1.0", name: "lobby-1", labels: ["site": "berlin"])

    static func sources() -> BeatSources {
        var sources = BeatSources()
        sources.decks = { [Beat.Deck(id: 12, name: "Cardio", revision: 7)] }
        sources.viewers = { [Beat.Viewer(viewer: "v1", connected: true, presentation: 12, slide: "a.html", since: nil)] }
        sources.analytics = { Beat.Analytics(queued: 3, oldestAgeSeconds: 40) }
        sources.disk = { Beat.Disk(freeBytes: 1000, minimumFreeBytes: 10) }
        sources.memory = { Beat.Memory(residentBytes: 5, availableBytes: 6) }
        sources.health = { Beat.Health(status: "healthy", problems: []) }
        sources.figures = { ["storybridge_connected_viewers": 1] }
        sources.log = { Beat.Log(entries: [.init(at: Date(timeIntervalSince1970: 0), level: "error", message: "boom")]) }
        return sources
    }

    @Test("every source answered: the beat carries them, unconfigured sections are null, uptime from the start")
    func allAnswered() async throws {
        let clock = ManualHostClock()
        let builder = BeatBuilder(identity: Self.identity, sources: Self.sources(), clock: clock)
        clock.advance(by: .seconds(90))
        let beat = await builder.build(seq: 7)
        #expect(beat.seq == 7 && beat.instance == "i-1" && beat.name == "lobby-1" && beat.labels == ["site": "berlin"])
        #expect(beat.uptimeSeconds == 90)
        #expect(beat.sentAt == clock.now)
        #expect(beat.decks == [Beat.Deck(id: 12, name: "Cardio", revision: 7)])
        #expect(beat.viewers?.count == 1 && beat.viewers?.list.first?.slide == "a.html")
        #expect(beat.analytics == Beat.Analytics(queued: 3, oldestAgeSeconds: 40))
        #expect(beat.sync == nil && beat.schedule == nil && beat.kiosk == nil && beat.hubUnreachable == nil)
        #expect(beat.figures == ["storybridge_connected_viewers": 1])
        #expect(beat.log.entries.map(\.message) == ["boom"])
    }

    @Test("a source that does not answer within 2 s of the clock is null, and the log says which")
    func lateSource() async throws {
        let clock = ManualHostClock()
        let answered = Atomic(0)
        var sources = BeatSources()
        sources.decks = {
            answered.add(1, ordering: .relaxed)
            return [Beat.Deck(id: 1, name: "A", revision: 1)]
        }
        sources.analytics = {
            // Never answers on its own (a stuck database read); cancelled when the budget is spent.
            try? await Task.sleep(for: .seconds(3600))
            return Beat.Analytics(queued: 99, oldestAgeSeconds: nil)
        }
        let builder = BeatBuilder(identity: Self.identity, sources: sources, clock: clock)
        let beat = Task { await builder.build(seq: 1) }
        // The quick source has answered and its timer is gone: only the stuck one's timer sleeps.
        let deadline = ContinuousClock.now + .seconds(30)
        while answered.load(ordering: .relaxed) < 1 || clock.sleepers != 1 {
            #expect(ContinuousClock.now < deadline, "the sources were not asked")
            try await Task.sleep(for: .milliseconds(2))
        }
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleepers == 1)
        clock.advance(by: .milliseconds(1))
        let made = await beat.value
        #expect(made.decks?.count == 1)
        #expect(made.analytics == nil)
        #expect(made.log.entries.map(\.message) == ["fleet: the beat's analytics source did not answer within 2 s; sent as null"])
    }

    @Test("viewers: all counted, connected first then most recently seen, at most 32 listed")
    func viewerOrder() {
        let old = Date(timeIntervalSince1970: 100)
        let recent = Date(timeIntervalSince1970: 200)
        var all = [
            Beat.Viewer(viewer: "gone-old", connected: false, presentation: 1, slide: nil, since: old),
            Beat.Viewer(viewer: "here", connected: true, presentation: 1, slide: nil, since: old),
            Beat.Viewer(viewer: "gone-recent", connected: false, presentation: 1, slide: nil, since: recent),
        ]
        #expect(BeatBuilder.viewers(all).list.map(\.viewer) == ["here", "gone-recent", "gone-old"])
        all += (0..<40).map { Beat.Viewer(viewer: "x\($0)", connected: false, presentation: nil, slide: nil, since: nil) }
        let capped = BeatBuilder.viewers(all)
        #expect(capped.count == 43 && capped.list.count == 32)
        #expect(capped.list.prefix(3).map(\.viewer) == ["here", "gone-recent", "gone-old"])
    }

    @Test("log: at most 20 entries (the oldest dropped and counted), messages cut to 300 characters")
    func logCap() {
        let entries = (0..<25).map { Beat.LogEntry(at: Date(timeIntervalSince1970: Double($0)), level: "warning", message: "m\($0)") }
        let capped = BeatBuilder.capped(Beat.Log(entries: entries, dropped: 2))
        #expect(capped.entries.count == 20 && capped.dropped == 7)
        #expect(capped.entries.first?.message == "m5" && capped.entries.last?.message == "m24")
        let long = BeatBuilder.capped(
            Beat.Log(entries: [.init(at: .distantPast, level: "error", message: String(repeating: "é", count: 500))]))
        #expect(long.entries[0].message.count == 300 && long.entries[0].message.hasSuffix("…"))
    }
}
