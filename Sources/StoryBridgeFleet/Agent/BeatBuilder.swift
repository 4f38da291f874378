import Foundation
import StoryBridge
import Synchronization

/// Makes beats from ``BeatSources`` (docs/design/FLEET.md §3.2, §4.3).
///
/// All sources are asked at once; one that has not answered within ``budget`` (2 s) of the
/// builder's clock is sent as null and named in the beat's log. Viewers are listed connected
/// first, then the most recently seen, at most 32; log entries at most 20, messages cut to 300
/// characters.
package struct BeatBuilder: Sendable {
    /// Who the kiosk is: the members every beat repeats.
    package struct Identity: Sendable, Equatable {
        /// The `instance` of the hello (a UUID per start).
        package var instance: String
        /// The storybridge version.
        package var version: String
        /// The kiosk's name.
        package var name: String
        /// Its labels.
        package var labels: [String: String]

        /// An identity.
        package init(instance: String, version: String, name: String, labels: [String: String]) {
            self.instance = instance
            self.version = version
            self.name = name
            self.labels = labels
        }
    }

    /// The kiosk's identity.
    package var identity: Identity
    /// The sources.
    package var sources: BeatSources
    /// The clock for `sentAt`, uptime and the budget.
    package var clock: any HostClock
    /// When `serve` started, on ``clock``.
    package var startedAt: ContinuousClock.Instant
    /// How long a source may take.
    package var budget: Duration

    /// A builder; `startedAt` defaults to the clock's instant now.
    package init(
        identity: Identity, sources: BeatSources, clock: any HostClock, startedAt: ContinuousClock.Instant? = nil,
        budget: Duration = .seconds(2)
    ) {
        self.identity = identity
        self.sources = sources
        self.clock = clock
        self.startedAt = startedAt ?? clock.instant
        self.budget = budget
    }

    /// Beat number `seq`, with `hubUnreachable` as the agent notes it.
    package func build(seq: Int, hubUnreachable: Beat.HubUnreachable? = nil) async -> Beat {
        let sources = self.sources
        async let decks = ask(sources.decks)
        async let viewers = ask(sources.viewers)
        async let analytics = ask(sources.analytics)
        async let sync = ask(sources.sync)
        async let disk = ask(sources.disk)
        async let memory = ask(sources.memory)
        async let health = ask(sources.health)
        async let schedule = ask(sources.schedule)
        async let kiosk = ask(sources.kiosk)
        async let figures = ask(sources.figures)
        async let checkpoint = ask(sources.checkpoint)
        let answers = await (decks, viewers, analytics, sync, disk, memory, health, schedule, kiosk, figures, checkpoint)
        let late = [
            ("decks", answers.0.isLate), ("viewers", answers.1.isLate), ("analytics", answers.2.isLate),
            ("sync", answers.3.isLate), ("disk", answers.4.isLate), ("memory", answers.5.isLate),
            ("health", answers.6.isLate), ("schedule", answers.7.isLate), ("kiosk", answers.8.isLate),
            ("figures", answers.9.isLate), ("checkpoint", answers.10.isLate),
        ].filter(\.1).map(\.0)
        var log = sources.log?() ?? Beat.Log()
        let now = clock.now
        for name in late {
            log.entries.append(
                Beat.LogEntry(
                    at: now, level: "warning",
                    message: "fleet: the beat's \(name) source did not answer within \(budget.components.seconds) s; sent as null"))
        }
        log = Self.capped(log)
        let uptime = startedAt.duration(to: clock.instant).components.seconds
        return Beat(
            seq: seq, sentAt: now, instance: identity.instance, uptimeSeconds: Int(max(0, uptime)), version: identity.version,
            name: identity.name, labels: identity.labels, decks: answers.0.value, viewers: answers.1.value.map(Self.viewers),
            analytics: answers.2.value ?? nil, sync: answers.3.value ?? nil, disk: answers.4.value ?? nil,
            memory: answers.5.value ?? nil, health: answers.6.value ?? nil, schedule: answers.7.value ?? nil,
            kiosk: answers.8.value ?? nil, log: log, hubUnreachable: hubUnreachable, figures: answers.9.value,
            checkpoint: answers.10.value ?? nil)
    }

    /// A source's answer: not configured, too late, or its value.
    private enum Answer<T: Sendable>: Sendable {
        case absent
        case late
        case value(T)

        var isLate: Bool { if case .late = self { true } else { false } }
        var value: T? { if case .value(let value) = self { value } else { nil } }
    }

    private func ask<T: Sendable>(_ source: (@Sendable () async -> T)?) async -> Answer<T> {
        guard let source else { return .absent }
        guard let value = await Self.answer(within: budget, clock: clock, { await source() }) else { return .late }
        return .value(value)
    }

    /// All of `all` counted; connected first, then the most recently seen, at most 32 listed.
    package static func viewers(_ all: [Beat.Viewer]) -> Beat.Viewers {
        let ordered = all.enumerated().sorted { left, right in
            if left.element.connected != right.element.connected { return left.element.connected }
            let leftSince = left.element.since ?? .distantPast
            let rightSince = right.element.since ?? .distantPast
            if leftSince != rightSince { return leftSince > rightSince }
            return left.offset < right.offset
        }
        return Beat.Viewers(count: all.count, list: ordered.prefix(Beat.Viewers.limit).map(\.element))
    }

    /// At most 20 entries (the oldest dropped, and counted), messages cut to 300 characters.
    package static func capped(_ log: Beat.Log) -> Beat.Log {
        var log = log
        if log.entries.count > Beat.Log.limit {
            let extra = log.entries.count - Beat.Log.limit
            log.entries.removeFirst(extra)
            log.dropped += extra
        }
        for index in log.entries.indices where log.entries[index].message.count > Beat.Log.messageLimit {
            log.entries[index].message = String(log.entries[index].message.prefix(Beat.Log.messageLimit - 1)) + "…"
        }
        return log
    }

    /// What `work` returns, or nil when `budget` of `clock` passes first. Returns at the budget even
    /// when `work` does not notice cancellation (it is cancelled and left to finish alone).
    package static func answer<T: Sendable>(
        within budget: Duration, clock: any HostClock, _ work: @escaping @Sendable () async -> T
    ) async -> T? {
        let race = FirstOfTwo<T>()
        return await withCheckedContinuation { continuation in
            race.start(continuation)
            race.add(
                Task {
                    let value = await work()
                    race.finish(value)
                })
            race.add(
                Task {
                    try? await clock.sleep(for: budget)
                    race.finish(nil)
                })
        }
    }
}

/// A continuation resumed once, by whichever of two tasks finishes first; the other is cancelled.
private final class FirstOfTwo<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        var tasks: [Task<Void, Never>] = []
        var done = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func add(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state -> Bool in
            if state.done { return true }
            state.tasks.append(task)
            return false
        }
        if cancelNow { task.cancel() }
    }

    func finish(_ value: T?) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T?, Never>?, [Task<Void, Never>]) in
            guard !state.done else { return (nil, []) }
            state.done = true
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        guard let continuation else { return }
        for task in tasks { task.cancel() }
        continuation.resume(returning: value)
    }
}
