import Foundation
import GRDB
import Logging
import ServiceLifecycle
import StoryBridge
import StoryBridgeFleet
import StoryBridgeServer
import StoryBridgeSync

/// serve's fleet agent (docs/design/FLEET.md §3): the beat's sources over the running host, and
/// the agent service. The sources are reads that exist for the health endpoint and the inspector;
/// none takes a lock a request path takes.
enum ServeFleet {
    /// The agent for `settings`, reading `host`, `metrics`, `syncStatus` (nil without scheduled
    /// sync), the health endpoint's `health` sources (its verdict, and the decks' sync states),
    /// the pins of `library` (nil when serving folders), the data folder and `tap`.
    static func agent(
        _ settings: FleetAgentSettings, hostKey: HostKey, host: StoryBridgeHost, metrics: HostMetrics,
        syncStatus: ScheduledSyncStatus?, health: HealthSources?, library: LibraryStore?, schedule: ScheduleSwitcher?,
        directory: DataDirectory, minimumFreeBytes: Int64, tap: FleetLogTap?, kiosk: KioskControl? = nil, logger: Logger
    ) -> FleetAgent {
        var sources = BeatSources()
        if let kiosk {
            // `storybridge kiosk`'s state: null while none is attached.
            sources.kiosk = {
                kiosk.attached.map { attached in
                    Beat.KioskStatus(
                        attached: true, mode: attached.attach.mode, browserRestarts: attached.status?.browserRestarts ?? 0,
                        idleResets: attached.status?.idleResets ?? 0, lastInputSecondsAgo: attached.status?.lastInputSecondsAgo)
                }
            }
        }
        if let schedule {
            // What the schedule plays now and until when; `installed` says whether the host has it.
            sources.schedule = {
                let (entry, until) = await schedule.now()
                let installed = entry.map { host.library.presentation(id: $0.target.presentation) != nil }
                return Beat.ScheduleNow(
                    presentation: entry?.target.presentation, slide: entry?.target.slide, source: entry?.source ?? "none", until: until,
                    installed: installed)
            }
        }
        let deckStates = health?.decks
        sources.decks = {
            let states = Dictionary((await deckStates?() ?? []).map { ($0.id, $0.state) }, uniquingKeysWith: { first, _ in first })
            var pins: [Int: RevisionPin] = [:]
            if let database = library?.database { pins = (try? await database.read { db in try RevisionPin.all(db) }) ?? [:] }
            return host.library.all.sorted { $0.id < $1.id }.map { deck in
                Beat.Deck(
                    id: deck.id, name: deck.name, revision: deck.revision, pinnedRevision: pins[deck.id]?.revision,
                    state: (states[deck.id] ?? nil) ?? "ready")
            }
        }
        if let health {
            sources.health = {
                let report = await HealthReport.build(host: host, sources: health, now: host.clock.now)
                return Beat.Health(status: report.isHealthy ? "healthy" : "unhealthy", problems: report.problems)
            }
        }
        sources.viewers = {
            var viewers: [Beat.Viewer] = []
            for viewer in await host.viewers.all {
                let state = await viewer.state
                viewers.append(
                    Beat.Viewer(
                        viewer: viewer.id, connected: await viewer.isConnected, presentation: state.presentationId,
                        slide: state.currentSlide, since: state.slideEnteredAt))
            }
            return viewers
        }
        sources.analytics = {
            guard let status = try? await host.analytics.uploadStatus() else { return nil }
            let oldest = try? await host.analytics.outbox(status: .queued, limit: 1).first?.queuedAt
            return Beat.Analytics(
                queued: status.queued, oldestAgeSeconds: oldest.map { max(0, Int(host.clock.now.timeIntervalSince($0))) })
        }
        if let syncStatus {
            sources.sync = {
                let snapshot = syncStatus.snapshot
                let run = snapshot.lastRun
                let result = run.map { $0.exitStatus == SyncExitStatus.busy ? "skipped" : $0.succeeded ? "ok" : "failed" }
                return Beat.Sync(
                    lastRunAt: run?.finishedAt, result: result, exitStatus: run?.exitStatus, summary: run?.summary,
                    failingSince: snapshot.failingSince, nextRunAt: snapshot.nextRunAt)
            }
        }
        let folder = directory.root.path
        sources.disk = {
            await BlockingIO.run { ProcessFigures.freeBytes(folder) }.map { Beat.Disk(freeBytes: $0, minimumFreeBytes: minimumFreeBytes) }
        }
        sources.memory = { await BlockingIO.run { ProcessFigures.memory() } }
        sources.figures = { metrics.figures() }
        let database = host.database
        sources.checkpoint = {
            // The newest checkpoint the host made (read per beat: a few hundred bytes, one indexed row).
            let document = try? await database.read { db in
                try AuditCheckpointRecord.order(AuditCheckpointRecord.CodingKeys.sequence.desc).fetchOne(db)?.document
            }
            return document.flatMap { try? JSONValue.parse($0) }
        }
        if let tap { sources.log = { tap.take() } }
        let builder = BeatBuilder(
            identity: .init(
                instance: UUID().uuidString.lowercased(), version: StoryBridgeVersion.current, name: settings.name, labels: settings.labels),
            sources: sources, clock: host.clock)
        // The hub's screenshot: what the attached `storybridge kiosk` shows.
        var screenshot: (@Sendable () async -> ScreenshotOutcome?)?
        if let kiosk { screenshot = { await kiosk.screenshot(within: KioskControl.screenshotLimit) } }
        return FleetAgent(
            settings: settings, hostKey: hostKey, builder: builder, clock: host.clock, logger: logger,
            schedule: schedule.map { $0.resolver.schedule.json },
            screenshot: screenshot)
    }
}
