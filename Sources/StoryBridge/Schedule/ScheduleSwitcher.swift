import Foundation
import Logging
import Synchronization

/// Carries a ``DeckSchedule`` out on a host (docs/design/FLEET.md §10.3): at each change of what
/// the schedule plays, every viewer showing another deck is sent to the scheduled deck's start
/// slide (a `navigate` event, cause `schedule`, as `open` does; a viewer with no connection at that
/// moment gets it when its next page connects); viewers already on it are left alone. A scheduled deck the host does not have switches nothing and is logged once per
/// entry. ``ScheduleService`` runs it on the host's clock.
package actor ScheduleSwitcher {
    package nonisolated let resolver: ScheduleResolver
    private let host: StoryBridgeHost
    private let logger: Logger
    /// What was last carried out, so a change is acted on once.
    private var applied: ScheduleResolver.Entry?
    private var warnedMissing: ScheduleResolver.Entry?
    /// The installed deck (and start slide) the schedule plays now, for the server's `/`.
    private let playing = Mutex<(presentation: Int, slide: String)?>(nil)

    /// The deck and start slide the schedule plays now, when the host has that deck: where `/`
    /// leads, so a browser (re)started on a kiosk lands on it too.
    package nonisolated var nowPlaying: (presentation: Int, slide: String)? { playing.withLock { $0 } }

    package init(schedule: DeckSchedule, host: StoryBridgeHost, logger: Logger) {
        resolver = ScheduleResolver(schedule)
        self.host = host
        self.logger = logger
    }

    /// What plays now and the moment that may change.
    package func now() -> (entry: ScheduleResolver.Entry?, until: Date) {
        resolver.entry(at: host.clock.now)
    }

    /// Acts on the entry of the host's present time when it differs from the one last acted on;
    /// returns when the entry may change next.
    @discardableResult
    package func tick() async -> Date {
        let (entry, until) = now()
        guard entry != applied else { return until }
        applied = entry
        guard let entry else {
            playing.withLock { $0 = nil }
            return until
        }
        guard let presentation = host.library.presentation(id: entry.target.presentation) else {
            if warnedMissing != entry {
                warnedMissing = entry
                logger.warning(
                    "schedule: presentation \(entry.target.presentation) (\(entry.window ?? "default")) is not installed; nothing is switched"
                )
            }
            // Tried again at the next tick: the deck may arrive by sync.
            applied = nil
            playing.withLock { $0 = nil }
            return min(until, host.clock.now.addingTimeInterval(60))
        }
        let slide = entry.target.slide.flatMap { presentation.hasSlide($0) ? $0 : nil } ?? presentation.entrySlide
        playing.withLock { $0 = (presentation.id, slide) }
        var switched = 0
        for viewer in await host.viewers.all {
            // A page not entered yet (its socket just opened) is left to the next change. A viewer
            // with no connection now (between two pages, or a browser restarting) gets the event
            // when its next page connects (the viewer's undelivered events).
            guard let shown = await viewer.state.presentationId, shown != presentation.id else { continue }
            await host.context(for: viewer).navigate(to: presentation, slide: slide, data: .emptyObject, cause: .schedule)
            switched += 1
        }
        logger.info(
            "schedule: \(presentation.name) (#\(presentation.id)) plays now (\(entry.window ?? "default")); \(switched) viewer(s) switched")
        return until
    }

    /// Ticks at each change until cancelled, sleeping on the host's clock at most 60 s at a time
    /// (so a changed system clock or zone is noticed).
    package func run() async {
        while !Task.isCancelled {
            let until = await tick()
            // An absolute deadline: right however far the clock moved while ticking (at most 60 s
            // ahead, so a changed system clock or zone is noticed). A deadline already passed
            // returns at once; `until` is after the moment the tick read, so this cannot spin.
            do {
                try await host.clock.sleep(until: min(until, host.clock.now.addingTimeInterval(60)))
            } catch {
                return
            }
        }
    }
}
