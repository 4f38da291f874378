import Foundation
import Synchronization

/// One browser tab showing content. The page reconnects on every slide load; the viewer and its
/// state live on in the host, found again by the id the page keeps in `sessionStorage`.
public actor Viewer {
    /// The viewer id the page sent.
    public nonisolated let id: String
    /// The navigation state (``latestState``, read on the actor).
    public var state: ViewerState { latestState }
    /// The one copy of the navigation state. The actor's methods change it, each change under one
    /// lock, so a reader that does not wait for the actor never sees half of one.
    private nonisolated let stored: Mutex<ViewerState>
    /// Waits for answers given in the browser chrome.
    nonisolated let prompts = ViewerPrompts()
    /// `getCurrentSlideName`'s `Data` for the slide it was made for, written as JSON once per slide
    /// (content asks for it on every slide, often several times).
    private nonisolated let slideNameAnswer = WrittenAnswer<String>()

    /// A function that delivers an event to one open connection.
    package typealias EventSink = @Sendable (HostEvent) -> Void

    private var connections: [(id: UUID, sink: EventSink)] = []
    private var undelivered: [HostEvent] = []
    private var lastPageLoad: String?
    /// The page load last entered by early requests (over HTTP, before its socket), until its socket comes.
    private var earlyPageLoad: String?
    /// The page load last entered as new: whether it keeps the viewer's session, and whether its
    /// records are written (``StoryBridgeHost/recordPageLoad(_:)``).
    private var pageLoadRecording: (pageLoad: String, keepsSession: Bool, recorded: Bool)?
    private static let undeliveredLimit = 256

    /// Told of every event sent to this viewer (the inspector's feed).
    private nonisolated let eventObserver: (@Sendable (String, HostEvent) -> Void)?

    /// Who holds the viewer (page connections being served) and since when nobody has: read by
    /// the registry without waiting for the actor, to decide when the viewer leaves memory.
    private nonisolated let activity: Mutex<Activity>

    private struct Activity {
        var leases = 0
        var idleSince: Date
        var retired = false
    }

    /// Creates a viewer with the id its page sent; `eventObserver` is told of every event sent.
    /// `idleSince` starts its idle time (now, for a viewer nobody holds yet).
    package init(id: String, idleSince: Date = Date(), eventObserver: (@Sendable (String, HostEvent) -> Void)? = nil) {
        self.id = id
        self.eventObserver = eventObserver
        self.activity = Mutex(Activity(idleSince: idleSince))
        self.stored = Mutex(ViewerState())
    }

    /// Brings back a viewer that left memory, as it was; its idle time restarts at `now`.
    package init(snapshot: ViewerSnapshot, now: Date, eventObserver: (@Sendable (String, HostEvent) -> Void)? = nil) {
        self.id = snapshot.id
        self.eventObserver = eventObserver
        self.activity = Mutex(Activity(idleSince: now))
        self.stored = Mutex(snapshot.state)
        self.lastPageLoad = snapshot.lastPageLoad
    }

    /// What the viewer keeps when it leaves memory; a viewer held now counts as idle from `now`.
    package func snapshot(at now: Date) -> ViewerSnapshot {
        ViewerSnapshot(id: id, state: state, lastPageLoad: lastPageLoad, idleSince: idleSince ?? now)
    }

    /// Ends the viewer's session by timeout: ``SessionTracker/timeOut(_:viewerId:lastActivity:)``
    /// on its state, which it then keeps (without the session).
    /// Nothing happens when a page took the viewer again since the sweep looked at it.
    func timeOutSession(with tracker: SessionTracker, lastActivity: Date) async throws {
        guard idleSince == lastActivity else { return }
        let ended = try await tracker.timeOut(state, viewerId: id, lastActivity: lastActivity)
        change { $0 = ended }
    }

    /// Ends the viewer's session because its presentation was quarantined
    /// (``SessionTracker/endByQuarantine(_:viewerId:)``); the viewer keeps its place without the
    /// session, so a page shown again later starts a new one.
    func endSessionByQuarantine(with tracker: SessionTracker) async throws {
        guard let ended = try await tracker.endByQuarantine(state, viewerId: id) else { return }
        change { state in
            guard state.sessionId == ended else { return }
            state.sessionId = nil
            state.slideEnteredAt = nil
        }
    }

    /// Ends the viewer's session because its kiosk screen was idle
    /// (``SessionTracker/endByIdle(_:viewerId:lastActivity:)``); the viewer keeps no session, so
    /// a page of it shown again would start a new one.
    func endSessionByIdle(with tracker: SessionTracker, lastActivity: Date) async throws -> String? {
        guard let ended = try await tracker.endByIdle(state, viewerId: id, lastActivity: lastActivity) else { return nil }
        change { state in
            guard state.sessionId == ended else { return }
            state.sessionId = nil
            state.slideEnteredAt = nil
        }
        return ended
    }

    // MARK: Leases (who holds the viewer in memory)

    /// Marks the viewer held (a page connection is being served); it stays in memory until every
    /// lease is released. Returns `false` when it has already left memory (take a new one).
    nonisolated func lease() -> Bool {
        activity.withLock { activity in
            guard !activity.retired else { return false }
            activity.leases += 1
            return true
        }
    }

    /// Releases a lease; when none is left the viewer is idle from `now`.
    nonisolated func release(at now: Date) {
        activity.withLock { activity in
            activity.leases = max(0, activity.leases - 1)
            if activity.leases == 0 { activity.idleSince = now }
        }
    }

    /// Since when nobody has held the viewer; `nil` while it is held.
    package nonisolated var idleSince: Date? {
        activity.withLock { $0.leases == 0 ? $0.idleSince : nil }
    }

    /// Retires the viewer when nobody has held it since before `cutoff`; a retired viewer takes no
    /// more leases. Returns whether it was retired.
    nonisolated func retireIfIdle(before cutoff: Date) -> Bool {
        activity.withLock { activity in
            guard activity.leases == 0, activity.idleSince < cutoff, !activity.retired else { return false }
            activity.retired = true
            return true
        }
    }

    /// Takes a retired viewer back (its state could not be saved): it stays in memory.
    nonisolated func unretire() {
        activity.withLock { $0.retired = false }
    }

    /// Whether at least one page of this viewer is connected.
    public var isConnected: Bool { !connections.isEmpty }

    /// The slide shown (read without copying the whole ``state``).
    public var currentSlide: String? { stored.withLock { $0.currentSlide } }

    /// The state as of its last change, read without waiting for the actor: what a command
    /// handler reads. A change made by an actor method is seen, whole, once that method has made it.
    public nonisolated var latestState: ViewerState { stored.withLock { $0 } }

    /// Reads part of ``latestState`` without copying the rest (what a handler that needs one field
    /// calls on every request): `read` gets the state under its lock, so keep it short.
    public nonisolated func latest<T>(_ read: (ViewerState) -> T) -> T {
        stored.withLock { read($0) }
    }

    /// `{"slide": <the slide shown>}` written as JSON, made once per slide; `nil` before any slide.
    nonisolated func currentSlideNameAnswer() -> EncodedJSON? {
        latest(\.currentSlide).map { slide in slideNameAnswer.answer(for: slide) { ["slide": .string($0)] } }
    }

    /// Changes the state in one step.
    private func change<T>(_ body: (inout ViewerState) -> T) -> T {
        stored.withLock { body(&$0) }
    }

    // MARK: Connections and events

    /// Attaches a connection; events sent while none was attached are delivered to it now.
    package func attach(connection: UUID, sink: @escaping EventSink) {
        connections.append((connection, sink))
        let backlog = undelivered
        undelivered.removeAll()
        for event in backlog { sink(event) }
    }

    /// Detaches a connection that closed.
    package func detach(connection: UUID) {
        connections.removeAll { $0.id == connection }
    }

    /// Sends an event to the viewer's newest connection, or keeps it until one attaches.
    public func send(_ event: HostEvent) {
        eventObserver?(id, event)
        if let newest = connections.last {
            newest.sink(event)
        } else {
            if undelivered.count >= Self.undeliveredLimit { undelivered.removeFirst() }
            undelivered.append(event)
        }
    }

    // MARK: Navigation

    /// What a page load meant for the viewer.
    package struct SlideEntry: Sendable, Hashable {
        /// `false` when the same page reconnected (no new slide view).
        package var isNewPageLoad: Bool
        /// The slide shown before, if any (same or other presentation).
        var previousSlide: String?
        /// The presentation shown before, if any.
        var previousPresentationId: Int?
        /// What caused this load.
        package var cause: NavigationCause
        /// The socket of a page load first entered by its early requests (``enterSlide(presentationId:slide:pageLoad:early:)``
        /// with `early`): the page load is not new, and was announced when it was entered.
        package var enteredEarly = false
    }

    /// Records that the page `pageLoad` shows `slide` of `presentationId`. A reconnect of the same
    /// page load changes nothing. Navigation data handed over by a pending `go`/`open` to this very
    /// slide becomes the slide's navigation data; any other load gets `{}`. `early`: entered by
    /// the page's early requests (docs/PROTOCOL.md §3.9); its socket's entry then says so
    /// (``SlideEntry/enteredEarly``).
    @discardableResult
    package func enterSlide(presentationId: Int, slide: String, pageLoad: String, early: Bool = false) -> SlideEntry {
        let before = state
        let previousSlide = before.currentSlide
        let previousPresentation = before.presentationId
        if pageLoad == lastPageLoad, previousSlide == slide, previousPresentation == presentationId {
            let enteredEarly = !early && earlyPageLoad == pageLoad
            if enteredEarly { earlyPageLoad = nil }
            return SlideEntry(
                isNewPageLoad: false, previousSlide: previousSlide, previousPresentationId: previousPresentation,
                cause: before.lastCause, enteredEarly: enteredEarly)
        }
        lastPageLoad = pageLoad
        earlyPageLoad = early ? pageLoad : nil
        let cause = change { state -> NavigationCause in
            var cause = NavigationCause.page
            if let pending = state.pendingNavigation, pending.presentationId == presentationId, pending.slide == slide {
                state.navigationData = pending.data
                cause = pending.cause
            } else {
                state.navigationData = .emptyObject
            }
            state.pendingNavigation = nil
            if previousPresentation != presentationId {
                state.history = []
                if !state.openedPresentations.contains(presentationId) {
                    state.openedPresentations.append(presentationId)
                }
            }
            state.presentationId = presentationId
            state.currentSlide = slide
            state.history.append(slide)
            state.lastCause = cause
            return cause
        }
        return SlideEntry(
            isNewPageLoad: true, previousSlide: previousSlide, previousPresentationId: previousPresentation,
            cause: cause)
    }

    /// Notes that `pageLoad` was entered as a new page load, keeping the session or not, and
    /// calls `announce` first: before this note no other path answers for the page load
    /// (``mayReadBeforeRecord(pageLoad:)``), so nothing it answers is seen before the announcement.
    func noteEntered(pageLoad: String, keepsSession: Bool, announce: @Sendable () -> Void) {
        announce()
        pageLoadRecording = (pageLoad, keepsSession, false)
    }

    /// Notes that `pageLoad`'s records are written.
    func noteRecorded(pageLoad: String) {
        if pageLoadRecording?.pageLoad == pageLoad { pageLoadRecording?.recorded = true }
    }

    /// Whether reads of `pageLoad`, entered by another path (its socket, an earlier early
    /// request), may be answered now: it keeps its session, or its records are written. `false`
    /// while that is not known yet.
    package func mayReadBeforeRecord(pageLoad: String) -> Bool {
        guard let recording = pageLoadRecording, recording.pageLoad == pageLoad else { return false }
        return recording.keepsSession || recording.recorded
    }

    /// Remembers a navigation the host is about to ask the page for.
    func expectNavigation(_ navigation: PendingNavigation) {
        change { $0.pendingNavigation = navigation }
    }

    /// Records that the next page load comes from a deep link.
    func arriveByDeepLink(_ link: DeepLink, slide: String, pageLoad: String) {
        guard pageLoad != lastPageLoad else { return }
        change { state in
            state.inboundDeepLink = link
            state.pendingNavigation = PendingNavigation(
                presentationId: link.presentationId, slide: slide, data: .emptyObject, cause: .deepLink)
        }
    }

    /// Changes the outbound deep link.
    @discardableResult
    func updateOutboundDeepLink(_ change: @Sendable (inout OutboundDeepLink) -> Void) -> OutboundDeepLink {
        self.change { state in
            change(&state.outboundDeepLink)
            return state.outboundDeepLink
        }
    }

    /// Sets the analytics session of the presentation shown.
    func setSession(_ id: String?) {
        change { $0.sessionId = id }
    }

    /// Notes when and how the current slide was entered.
    func markSlideEntered(at date: Date, navigation: String) {
        change { state in
            state.slideEnteredAt = date
            state.slideNavigation = navigation
        }
    }

    /// Records that the viewer closed its presentation (the page then leaves the slides).
    package func closePresentation() {
        change { state in
            state.presentationId = nil
            state.currentSlide = nil
            state.history = []
            state.pendingNavigation = nil
            state.navigationData = .emptyObject
            state.sessionId = nil
            state.slideEnteredAt = nil
        }
        lastPageLoad = nil
    }

    /// Changes the viewer chrome and returns the new flags.
    @discardableResult
    func updateChrome(_ change: @Sendable (inout ChromeFlags) -> Void) -> ChromeFlags {
        self.change { state in
            change(&state.chrome)
            return state.chrome
        }
    }
}
