import Logging
import Synchronization

/// The console lines of pages (`consolelog` commands): each is logged at the level the page used
/// and shown in the inspector, and each page is held to ``PageConsoleSettings/limit`` so a chatty
/// deck cannot flood either. Lines over the limit are dropped and counted; the count is told as
/// one warning when the page's lines pass again (at most once a second per page, so a page that
/// keeps flooding does not get a count before each line that passes) or when it disconnects.
package final class PageConsole: Sendable {
    /// What the host does with console lines.
    package let settings: PageConsoleSettings
    private let clock: any HostClock
    private let feed: InspectorFeed
    /// Each page's bucket and the lines dropped since its count was last told, by viewer id. Only
    /// `consolelog` commands take this lock.
    private let pages = Mutex<[String: Page]>([:])

    /// Characters of a line kept for the log and the inspector; longer lines are cut.
    static let lineLimit = InspectorFeed.dataLimit

    /// The shortest time between two counts of a page's dropped lines.
    static let countInterval: Duration = .seconds(1)

    private struct Page {
        var bucket: ConsoleTokenBucket
        /// Lines dropped (here and by the page) and not yet told.
        var dropped = 0
        /// When the page's last count was told.
        var told: ContinuousClock.Instant?
    }

    /// A page console of a host, reading time from `clock` and showing lines in `feed`.
    package init(settings: PageConsoleSettings, clock: any HostClock, feed: InspectorFeed) {
        self.settings = settings
        self.clock = clock
        self.feed = feed
    }

    /// Takes one line from the page of `context`: logs it and puts it in the inspector when the
    /// page is within its limit (after telling the lines dropped before it, if any), or drops and
    /// counts it. Returns whether the line was passed.
    @discardableResult
    package func receive(_ line: PageConsoleLine, context: BridgeContext) -> Bool {
        let instant = clock.instant
        let limit = settings.limit
        let (passed, dropped) = pages.withLock { pages -> (Bool, Int) in
            let id = context.viewer.id
            if pages[id] == nil { pages[id] = Page(bucket: ConsoleTokenBucket(limit: limit, at: instant)) }
            return Self.admit(line, to: &pages[id]!, at: instant)
        }
        guard passed else { return false }
        if dropped > 0 { tellDropped(dropped, context: context) }
        if let message = line.message { show(message, level: line.level, context: context) }
        return true
    }

    /// Forgets the page of `context` (its connection ended), telling the lines it had dropped.
    package func pageClosed(_ context: BridgeContext) {
        let page = pages.withLock { $0.removeValue(forKey: context.viewer.id) }
        if let dropped = page?.dropped, dropped > 0 { tellDropped(dropped, context: context) }
    }

    /// Pages whose lines are being counted now.
    package var pageCount: Int { pages.withLock { $0.count } }

    /// Counts the page's own drops, then takes a token for the line: when there is none, the line
    /// is dropped; when there is one (or the frame only reports drops, which takes none: a page
    /// whose lines used the whole limit can still report), the count to tell is handed back (and
    /// restarts) unless the last was told less than ``countInterval`` ago.
    private static func admit(_ line: PageConsoleLine, to page: inout Page, at instant: ContinuousClock.Instant) -> (Bool, Int) {
        page.dropped += line.droppedByPage
        guard line.message == nil || page.bucket.take(at: instant) else {
            page.dropped += 1
            return (false, 0)
        }
        guard page.dropped > 0, page.told.map({ instant - $0 >= countInterval }) ?? true else { return (true, 0) }
        defer {
            page.dropped = 0
            page.told = instant
        }
        return (true, page.dropped)
    }

    private func show(_ message: String, level: PageConsoleLevel, context: BridgeContext) {
        let text = message.count > Self.lineLimit ? String(message.prefix(Self.lineLimit)) + "…" : message
        let page = Self.shownPage(context)
        context.logger.log(
            level: level.loggerLevel, "\(Self.oneLine(text))",
            metadata: [
                "console": "\(level.rawValue)", "presentation": "\(page.presentationId.map(String.init) ?? "-")",
                "slide": "\(page.slide ?? "-")",
            ])
        feed.record(
            .console(
                viewerId: context.viewer.id, presentationId: page.presentationId, slide: page.slide, level: level, message: text,
                dropped: 0))
    }

    private func tellDropped(_ count: Int, context: BridgeContext) {
        let message = Self.droppedMessage(count)
        let page = Self.shownPage(context)
        context.logger.warning(
            "\(message)",
            metadata: [
                "presentation": "\(page.presentationId.map(String.init) ?? "-")", "slide": "\(page.slide ?? "-")",
                "dropped": "\(count)",
            ])
        feed.record(
            .console(
                viewerId: context.viewer.id, presentationId: page.presentationId, slide: page.slide, level: .warn,
                message: message, dropped: count))
    }

    /// The presentation and slide the page of `context` shows.
    private static func shownPage(_ context: BridgeContext) -> (presentationId: Int?, slide: String?) {
        context.viewer.latest { ($0.presentationId, $0.currentSlide) }
    }

    /// The sentence that tells `count` dropped lines.
    package static func droppedMessage(_ count: Int) -> String {
        count == 1
            ? "1 console line from this page was dropped (rate limit)"
            : "\(count) console lines from this page were dropped (rate limit)"
    }

    /// The text on one log line: line breaks written as `\n` and `\r`.
    private static func oneLine(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
    }
}
