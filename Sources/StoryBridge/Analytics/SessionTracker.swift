import Foundation
import Logging

/// Turns what viewers do into analytics records: starts, restores and ends sessions, records a
/// slide view when a slide is left, and media views when an overlay closes. Every date and
/// duration it records is read from ``clock``.
public final class SessionTracker: Sendable {
    /// The analytics records (`context.sessions.store.database` is the host's database).
    public let store: AnalyticsStore
    /// Where the tracker reads the time: record dates, and the durations of slide and media views.
    package let clock: any HostClock
    let identity: HostIdentity
    let policy: ViewerPolicy
    let viewers: ViewerRegistry
    /// Where a new session reads the revision of its presentation (``SessionRecord/presentationRevision``).
    let library: PresentationLibrary
    let logger: Logger

    init(
        store: AnalyticsStore, identity: HostIdentity, policy: ViewerPolicy, viewers: ViewerRegistry, library: PresentationLibrary,
        clock: any HostClock, logger: Logger
    ) {
        self.store = store
        self.library = library
        self.clock = clock
        self.identity = identity
        self.policy = policy
        self.viewers = viewers
        self.logger = logger
    }

    /// Called after a page load of `slide` of `presentationId` was entered in the viewer.
    func pageLoaded(_ viewer: Viewer, entry: Viewer.SlideEntry, presentationId: Int) async throws {
        guard entry.isNewPageLoad else { return }
        let now = clock.now
        let state = await viewer.state
        if let sessionId = state.sessionId, let previous = entry.previousSlide,
            let previousPresentation = entry.previousPresentationId, let enteredAt = state.slideEnteredAt
        {
            try await recordSlideView(
                sessionId: sessionId, presentationId: previousPresentation, slide: previous, enteredAt: enteredAt, now: now,
                navigation: state.slideNavigation, cause: entry.cause.rawValue)
        }
        if entry.previousPresentationId != presentationId || state.sessionId == nil {
            if let old = state.sessionId, let session = try await store.session(id: old), session.state == .inProgress {
                try await store.setState(entry.cause == .deepLink ? .leftByDeepLink : .leftByOpen, sessionId: old)
            }
            try await startSession(viewer, presentationId: presentationId, now: now)
        }
        let arrived = entry.cause == .deepLink ? await viewer.state : nil
        if let link = arrived?.inboundDeepLink, let sessionId = arrived?.sessionId {
            try await store.insert(
                DeepLinkRecord(
                    id: UUIDs.make(), sessionId: sessionId, presentationId: presentationId, userId: identity.user.id,
                    direction: .inbound, uri: link.uri, source: link.source, parameters: link.parameters,
                    stamp: RecordStamp(at: now, identity: identity)))
        }
        await viewer.markSlideEntered(at: now, navigation: entry.cause == .map ? "out" : "in")
    }

    private func recordSlideView(
        sessionId: String, presentationId: Int, slide: String, enteredAt: Date, now: Date, navigation: String, cause: String
    ) async throws {
        try await store.insert(
            SlideViewRecord(
                id: UUIDs.make(), sessionId: sessionId, presentationId: presentationId, slideName: slide,
                userId: identity.user.id, duration: Self.seconds(from: enteredAt, to: now),
                navigation: navigation, cause: cause, stamp: RecordStamp(at: enteredAt, identity: identity)))
    }

    /// Whole seconds from `start` to `end`, rounded; 0 when `end` is earlier.
    static func seconds(from start: Date, to end: Date) -> Int {
        max(0, Int(end.timeIntervalSince(start).rounded()))
    }

    private func startSession(_ viewer: Viewer, presentationId: Int, now: Date) async throws {
        let active = await activeSessions()
        let unfinished = try await store.unfinishedSession(presentationId: presentationId, userId: identity.user.id, excluding: active)
        if let unfinished, policy.restoreDecision == .restore {
            try await store.setState(.inProgress, sessionId: unfinished.id)
            await viewer.setSession(unfinished.id)
            logger.debug("session restored", metadata: ["session": "\(unfinished.id)"])
            return
        }
        let session = SessionRecord(
            id: UUIDs.make(), presentationId: presentationId, viewerId: viewer.id, userId: identity.user.id,
            stamp: RecordStamp(at: now, identity: identity), address: identity.location.address, duration: 0, slidesCount: 0,
            state: .inProgress, complete: false, presentationRevision: library.presentation(id: presentationId)?.revision)
        try await store.insert(session)
        await viewer.setSession(session.id)
        if let unfinished, policy.restoreDecision == .ask {
            let prompt = "restore-\(UUID().uuidString)"
            await viewer.send(HostEvent(name: "confirmRestore", data: ["prompt": .string(prompt), "session": unfinished.json]))
            // The page goes on while the viewer decides; a "restore" merges what was recorded meanwhile.
            Task {
                guard await viewer.prompts.answer(to: prompt)?.stringValue == "restore" else { return }
                guard await viewer.state.sessionId == session.id else { return }
                do {
                    try await self.store.merge(session.id, into: unfinished.id)
                    await viewer.setSession(unfinished.id)
                } catch {
                    self.logger.error("session restore failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    private func activeSessions() async -> Set<String> {
        var ids: Set<String> = []
        for viewer in await viewers.all {
            if let id = await viewer.state.sessionId { ids.insert(id) }
        }
        return ids
    }

    /// Ends the viewer's session: records the slide shown, then sets state 1 (saved) or 2.
    func close(_ viewer: Viewer, saved: Bool) async throws {
        let state = await viewer.state
        guard let sessionId = state.sessionId else { return }
        let now = clock.now
        if let slide = state.currentSlide, let presentationId = state.presentationId, let enteredAt = state.slideEnteredAt {
            try await recordSlideView(
                sessionId: sessionId, presentationId: presentationId, slide: slide, enteredAt: enteredAt, now: now,
                navigation: state.slideNavigation, cause: "close")
        }
        // The apps launch the outbound link content prepared when the presentation closes.
        let outbound = state.outboundDeepLink
        if let uri = outbound.uri, let scheme = outbound.scheme, let presentationId = state.presentationId {
            try await store.insert(
                DeepLinkRecord(
                    id: UUIDs.make(), sessionId: sessionId, presentationId: presentationId, userId: identity.user.id,
                    direction: .outbound, uri: uri, source: scheme, parameters: outbound.parameters,
                    stamp: RecordStamp(at: now, identity: identity)))
        }
        try await store.setState(saved ? .saved : .notSaved, sessionId: sessionId, endedBy: .close)
    }

    /// Finishes the session of a viewer gone since `lastActivity` (its last page connection
    /// closed then): the slide it showed is recorded up to `lastActivity` (cause `timeout`), and the
    /// session is saved (state 1, `endedBy` `timeout`) and queued for upload. Returns the viewer's
    /// state without the session, so a tab that comes back later starts a new one.
    func timeOut(_ state: ViewerState, viewerId: String, lastActivity: Date) async throws -> ViewerState {
        guard let sessionId = state.sessionId else { return state }
        if let session = try await store.session(id: sessionId), session.state == .inProgress {
            if let slide = state.currentSlide, let presentationId = state.presentationId, let enteredAt = state.slideEnteredAt {
                try await recordSlideView(
                    sessionId: sessionId, presentationId: presentationId, slide: slide, enteredAt: enteredAt,
                    now: max(enteredAt, lastActivity), navigation: state.slideNavigation, cause: "timeout")
            }
            try await store.setState(.saved, sessionId: sessionId, endedBy: .timeout)
            logger.info("session ended by timeout", metadata: ["session": "\(sessionId)", "viewer": "\(viewerId)"])
        }
        var state = state
        state.sessionId = nil
        state.slideEnteredAt = nil
        return state
    }

    /// Ends the session in `state` because its presentation was quarantined: the slide shown is
    /// recorded up to now (cause `quarantine`) and the session saved (state 1, `endedBy`
    /// `quarantine`) and queued for upload. Returns the id of the session ended, if one was.
    func endByQuarantine(_ state: ViewerState, viewerId: String) async throws -> String? {
        guard let sessionId = state.sessionId, let session = try await store.session(id: sessionId), session.state == .inProgress
        else { return nil }
        if let slide = state.currentSlide, let presentationId = state.presentationId, let enteredAt = state.slideEnteredAt {
            try await recordSlideView(
                sessionId: sessionId, presentationId: presentationId, slide: slide, enteredAt: enteredAt, now: max(enteredAt, clock.now),
                navigation: state.slideNavigation, cause: "quarantine")
        }
        try await store.setState(.saved, sessionId: sessionId, endedBy: .quarantine)
        logger.warning("session ended: its presentation was quarantined", metadata: ["session": "\(sessionId)", "viewer": "\(viewerId)"])
        return sessionId
    }

    /// Ends the session in `state` because the kiosk's screen was left untouched (`storybridge
    /// kiosk --idle-reset`): the slide shown is recorded up to `lastActivity` (no earlier than
    /// it was entered; cause `idle`) and the session saved (state 1, `endedBy` `idle`) and queued
    /// for upload. Returns the id of the session ended, if one was in progress.
    func endByIdle(_ state: ViewerState, viewerId: String, lastActivity: Date) async throws -> String? {
        guard let sessionId = state.sessionId, let session = try await store.session(id: sessionId), session.state == .inProgress
        else { return nil }
        if let slide = state.currentSlide, let presentationId = state.presentationId, let enteredAt = state.slideEnteredAt {
            try await recordSlideView(
                sessionId: sessionId, presentationId: presentationId, slide: slide, enteredAt: enteredAt,
                now: min(max(enteredAt, lastActivity), clock.now), navigation: state.slideNavigation, cause: "idle")
        }
        try await store.setState(.saved, sessionId: sessionId, endedBy: .idle)
        logger.info("session ended: the kiosk's screen was idle", metadata: ["session": "\(sessionId)", "viewer": "\(viewerId)"])
        return sessionId
    }

    /// Records a media file shown from `opened` (a date read from ``clock``) until now.
    func mediaViewed(_ viewer: Viewer, presentationId: Int, fileName: String, opened: Date) async throws {
        guard let sessionId = viewer.latestState.sessionId else { return }
        try await store.insert(
            MediaViewRecord(
                id: UUIDs.make(), sessionId: sessionId, presentationId: presentationId, fileName: fileName,
                userId: identity.user.id, duration: Self.seconds(from: opened, to: clock.now),
                stamp: RecordStamp(at: opened, identity: identity)))
    }

    /// A record stamp for now: the clock's date, the host's time zone and location.
    func stampNow() -> RecordStamp {
        RecordStamp(at: clock.now, identity: identity)
    }

    /// The viewer's current session id; 400 when no presentation is open.
    func currentSessionId(_ viewer: Viewer) async throws(BridgeError) -> String {
        guard let id = viewer.latest(\.sessionId) else {
            throw .refused("No session is open in this viewer: no presentation is shown")
        }
        return id
    }
}
