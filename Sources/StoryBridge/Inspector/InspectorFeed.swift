import Foundation
import Synchronization

/// What happened on the host, for the inspector: every request and its answer, every host event,
/// page connections and reloads. Keeps the most recent entries and streams new ones to subscribers.
///
/// Recording is cheap (one of several locks and a reference to the exchange); entries are turned into JSON only when
/// somebody reads them, so an unwatched host pays almost nothing.
package final class InspectorFeed: Sendable {
    /// One thing that happened.
    package enum Entry: Sendable {
        case exchange(BridgeExchange)
        case event(viewerId: String, HostEvent)
        case connection(viewerId: String, connected: Bool, presentationId: Int, slide: String)
        case reload(presentationId: Int, files: [String])
        /// Something wrong with a slide that the host noticed while serving it (for example, the
        /// client script could not be placed in it); `message` says what and what to do.
        case warning(presentationId: Int, slide: String, message: String)
        /// A line of a page's console (``PageConsole``), at the level the page used; or, with
        /// `dropped` above zero, the count of the page's lines dropped by the rate limit.
        case console(viewerId: String, presentationId: Int?, slide: String?, level: PageConsoleLevel, message: String, dropped: Int)
    }

    /// An entry with its place in the feed, as the ring keeps it: a number and one reference.
    /// Copying one in or out of the ring is then a single retain, where a struct holding the
    /// four-case ``Entry`` and a date went through the runtime's enum copying, which cost a
    /// recording more than the rest of it.
    private struct Stamped: Sendable {
        let seq: Int
        let kept: Kept
    }

    /// What the ring holds of an entry: an exchange as it is (a class, ``BridgeExchange``, which
    /// brings the instant its answer was made, so recording it reads no clock); anything else
    /// boxed with the date it was recorded.
    private enum Kept: Sendable {
        case exchange(BridgeExchange)
        case other(Dated)
    }

    /// A host event, connection, reload, warning or console line, with when it was recorded.
    private final class Dated: Sendable {
        let entry: Entry
        let date: Date

        init(_ entry: Entry, date: Date) {
            self.entry = entry
            self.date = date
        }
    }

    /// The date and the instant when the feed was made, to turn an instant into a date.
    private let origin = (date: Date(), instant: ContinuousClock.now)

    /// One part of the ring. Entries are spread over the parts by their sequence number, so pages
    /// answered on different cores record into different locks instead of queueing on one.
    private struct Shard {
        var recent: [Stamped] = []
        /// Index in `recent` of the oldest entry once this part is full.
        var start = 0
        /// Every subscriber, in each part: a recording sees them under its own part's lock.
        var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
    }

    /// A part's lock (a class, so the parts can sit in an array).
    private final class ShardLock: Sendable {
        let state = Mutex(Shard())
    }

    private let shards: [ShardLock]
    /// Entries each part keeps.
    private let shardCapacity: Int
    private let nextSeq = Atomic<Int>(1)
    /// How many recent entries are kept for an inspector that opens later.
    package let capacity: Int
    /// Data larger than this (as JSON) is shown as a preview only.
    static let dataLimit = 4_096
    /// Characters of a preview of clipped data.
    static let previewLength = 512

    /// Creates an empty feed keeping `capacity` recent entries.
    package init(capacity: Int = 500) {
        self.capacity = max(1, capacity)
        let parts = min(8, self.capacity)
        shards = (0..<parts).map { _ in ShardLock() }
        shardCapacity = (self.capacity + parts - 1) / parts
    }

    /// Records an entry and sends it to the subscribers.
    package func record(_ entry: Entry) {
        let kept: Kept
        if case .exchange(let exchange) = entry { kept = .exchange(exchange) } else { kept = .other(Dated(entry, date: Date())) }
        let seq = nextSeq.wrappingAdd(1, ordering: .relaxed).oldValue
        let stamped = Stamped(seq: seq, kept: kept)
        let shardCapacity = self.shardCapacity
        // The entry pushed out of the ring is released after the lock is let go: freeing an old
        // exchange's strings and values must not hold up the other cores recording theirs.
        let (evicted, subscribers) = shards[seq % shards.count].state.withLock {
            shard -> (Stamped?, [AsyncStream<String>.Continuation]) in
            var evicted: Stamped?
            if shard.recent.count < shardCapacity {
                shard.recent.append(stamped)
            } else {
                evicted = shard.recent[shard.start]
                shard.recent[shard.start] = stamped
                shard.start = (shard.start + 1) % shardCapacity
            }
            return (evicted, shard.subscribers.isEmpty ? [] : Array(shard.subscribers.values))
        }
        withExtendedLifetime(evicted) {}
        guard !subscribers.isEmpty else { return }
        let text = json(stamped).jsonString()
        for subscriber in subscribers { subscriber.yield(text) }
    }

    /// The recent entries, oldest first, as JSON.
    package var recentEntries: [JSONValue] {
        var kept: [Stamped] = []
        acrossShards { kept.append(contentsOf: $0.recent) }
        return recent(kept).map(json)
    }

    /// Subscribes to the feed: the recent entries, then `{"type":"live"}`, then each new entry as
    /// JSON text. Ends when the subscriber's task stops iterating or ``unsubscribe(_:)`` is called.
    package func subscribe() -> (id: UUID, entries: AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(2_000))
        // The history and the registration happen under every part's lock at once, so no entry is
        // missed or doubled: a recording either came before (in the history) or sees the subscriber.
        var history: [Stamped] = []
        acrossShards { shard in
            shard.subscribers[id] = continuation
            history.append(contentsOf: shard.recent)
        }
        for stamped in recent(history) { continuation.yield(json(stamped).jsonString()) }
        continuation.yield(#"{"type":"live"}"#)
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return (id, stream)
    }

    /// Ends a subscription.
    package func unsubscribe(_ id: UUID) {
        var continuation: AsyncStream<String>.Continuation?
        acrossShards { shard in
            if let removed = shard.subscribers.removeValue(forKey: id) { continuation = removed }
        }
        continuation?.finish()
    }

    /// How many inspectors are watching.
    package var subscriberCount: Int { shards[0].state.withLock { $0.subscribers.count } }

    /// Runs `body` on every part, holding all their locks until the last has run (taken in order,
    /// so two such calls cannot wait on each other).
    private func acrossShards(from index: Int = 0, _ body: (inout Shard) -> Void) {
        guard index < shards.count else { return }
        shards[index].state.withLock { shard in
            body(&shard)
            acrossShards(from: index + 1, body)
        }
    }

    /// The newest ``capacity`` of `entries`, oldest first.
    private func recent(_ entries: [Stamped]) -> ArraySlice<Stamped> {
        entries.sorted { $0.seq < $1.seq }.suffix(capacity)
    }

    /// The date of `instant`, an instant of the bridge's clock.
    private func date(_ instant: ContinuousClock.Instant) -> Date {
        let elapsed = (instant - origin.instant).components
        return origin.date.addingTimeInterval(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }

    private func json(_ stamped: Stamped) -> JSONValue {
        let entry: Entry
        let at: Date
        switch stamped.kept {
        case .exchange(let exchange):
            entry = .exchange(exchange)
            at = date(exchange.finished)
        case .other(let dated):
            entry = dated.entry
            at = dated.date
        }
        var members: [String: JSONValue] = ["seq": .int(stamped.seq), "at": .string(AnalyticsFormat.timestamp(at))]
        switch entry {
        case .exchange(let exchange):
            let milliseconds =
                Double(exchange.duration.components.seconds) * 1000
                + Double(exchange.duration.components.attoseconds) / 1e15
            members["type"] = "exchange"
            members["viewer"] = .string(exchange.viewerId)
            members["command"] = .string(exchange.request.command)
            members["guid"] = exchange.request.guid.map(JSONValue.string) ?? .null
            members["data"] = Self.clip(exchange.request.data)
            members["status"] = exchange.response.map { .string($0.status.rawValue) } ?? .null
            members["code"] = exchange.response.map { .int($0.errorCode) } ?? .null
            members["message"] = exchange.response.flatMap { $0.errorMessage.isEmpty ? nil : .string($0.errorMessage) } ?? .null
            members["response"] = exchange.response.map { Self.clip($0.data) } ?? .null
            members["ms"] = .double((milliseconds * 1000).rounded() / 1000)
        case .event(let viewerId, let event):
            members["type"] = "event"
            members["viewer"] = .string(viewerId)
            members["name"] = .string(event.name)
            members["data"] = Self.clip(event.data)
        case .connection(let viewerId, let connected, let presentationId, let slide):
            members["type"] = "connection"
            members["viewer"] = .string(viewerId)
            members["connected"] = .bool(connected)
            members["presentation"] = .int(presentationId)
            members["slide"] = .string(slide)
        case .reload(let presentationId, let files):
            members["type"] = "reload"
            members["presentation"] = .int(presentationId)
            members["files"] = .array(files.map(JSONValue.string))
        case .warning(let presentationId, let slide, let message):
            members["type"] = "warning"
            members["presentation"] = .int(presentationId)
            members["slide"] = .string(slide)
            members["message"] = .string(message)
        case .console(let viewerId, let presentationId, let slide, let level, let message, let dropped):
            members["type"] = "console"
            members["viewer"] = .string(viewerId)
            members["presentation"] = presentationId.map(JSONValue.int) ?? .null
            members["slide"] = slide.map(JSONValue.string) ?? .null
            members["level"] = .string(level.rawValue)
            members["message"] = .string(message)
            members["dropped"] = .int(dropped)
        }
        return .object(members)
    }

    /// `value` itself, or a preview of it when its JSON is longer than ``dataLimit`` bytes.
    package static func clip(_ value: JSONValue) -> JSONValue {
        let text = value.jsonString()
        guard text.utf8.count > dataLimit else { return value }
        return ["truncated": true, "bytes": .int(text.utf8.count), "preview": .string(String(text.prefix(previewLength)) + "…")]
    }
}
