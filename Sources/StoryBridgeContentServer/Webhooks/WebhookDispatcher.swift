import AsyncHTTPClient
import Foundation
import GRDB
import Hummingbird
import Logging
import ServiceLifecycle
import StoryBridge
import Synchronization

/// Sends the webhooks (docs/design/FLEET.md §8.2, §8.4), a `Service` of the content server.
///
/// An event is first written to `webhook_delivery` of `hub.sqlite`, one row per endpoint that
/// takes it, then sent: `POST` with the signed body, 10 s timeout, no redirects followed. At most
/// 4 requests are in flight, 1 per endpoint, oldest first. ``WebhookRetryPolicy`` decides what an
/// answer means. Every time is the injected ``HostClock``'s: the run loop sleeps until the next
/// row's absolute `nextAttemptAt` (or until an event is submitted), so a test moves a manual
/// clock and sees the attempts at the documented times. Pending rows survive a restart; a row
/// whose endpoint (index and URL) is no longer configured is given up. Delivered and failed rows
/// are deleted after 7 days.
package final class WebhookDispatcher: Service, Sendable {
    /// The database the deliveries are kept in.
    package let database: HubDatabase
    /// The endpoints.
    package let configuration: WebhookConfiguration
    let clock: any HostClock
    let logger: Logger
    let metrics: FleetMetrics?
    /// The factor each wait is scaled by (0.8…1.2 at random; tests give 1).
    let jitter: @Sendable () -> Double
    private let state = Mutex(WakeState())

    /// How long done rows are kept.
    static let keptFor: TimeInterval = 7 * 86_400
    /// Requests in flight at most.
    static let concurrentRequests = 4

    /// Makes an event's body when the run loop takes it (nil: nothing to send).
    package typealias Submission = @Sendable () async -> (WebhookEvent, Data)?

    private struct WakeState {
        var sleeper: Task<Void, Never>?
        var woken = false
        /// Events submitted and not written yet, in order.
        var inbox: [Submission] = []
    }

    /// A dispatcher of `configuration`'s endpoints, keeping its deliveries in `database`.
    package init(
        database: HubDatabase, configuration: WebhookConfiguration, clock: any HostClock, logger: Logger, metrics: FleetMetrics? = nil,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.8...1.2) }
    ) {
        self.database = database
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.jitter = jitter
    }

    // MARK: - Events in

    /// Writes `event` with `body` (the whole envelope) for each endpoint that takes it, in `db`
    /// (the caller's transaction), created now; returns how many rows it wrote. Call ``wake()`` after
    /// the transaction.
    @discardableResult
    package func insert(_ event: WebhookEvent, body: Data, _ db: Database) throws -> Int {
        var count = 0
        let now = clock.now
        for (index, endpoint) in configuration.endpoints.enumerated() where endpoint.events.contains(event) {
            try db.execute(
                sql: """
                    INSERT INTO webhook_delivery (id, endpoint, url, event, body, createdAt, attempts, nextAttemptAt, state)
                    VALUES (?, ?, ?, ?, ?, ?, 0, ?, 'pending')
                    """,
                arguments: [UUID().uuidString.lowercased(), index, endpoint.url.absoluteString, event.name, body, now, now])
            count += 1
        }
        return count
    }

    /// Writes `event` with `body` in a transaction of its own and wakes the run loop.
    package func enqueue(_ event: WebhookEvent, body: Data) async {
        guard configuration.endpoints.contains(where: { $0.events.contains(event) }) else { return }
        do {
            _ = try await database.pool.write { db in try self.insert(event, body: body, db) }
        } catch {
            logger.error("webhooks: cannot queue an event", metadata: ["event": "\(event.name)", "error": "\(error)"])
        }
        wake()
    }

    /// Hands an event over without waiting: the run loop calls `make` and writes its event, in
    /// the order of submission (the registry's kiosk events, whose bodies need a database read).
    package func submit(_ make: @escaping Submission) {
        state.withLock { $0.inbox.append(make) }
        wake()
    }

    /// Ends the run loop's wait: something may be due.
    package func wake() {
        state.withLock { state in
            if let sleeper = state.sleeper {
                sleeper.cancel()
            } else {
                state.woken = true
            }
        }
    }

    /// Deliveries not done yet.
    package func pendingCount() async -> Int {
        (try? await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhook_delivery WHERE state = 'pending'")
        }) ?? 0
    }

    // MARK: - Running

    /// Sends what is due, then waits for the next due row or a new event, until cancelled.
    package func run() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        await cancelWhenGracefulShutdown { await self.loop(client) }
        try? await client.shutdown()
    }

    private func loop(_ client: HTTPClient) async {
        var lastCleanup: Date?
        while !Task.isCancelled {
            if lastCleanup.map({ clock.now.timeIntervalSince($0) >= 3600 }) ?? true {
                lastCleanup = clock.now
                await deleteOld()
            }
            for make in state.withLock({ state in
                defer { state.inbox = [] }
                return state.inbox
            }) {
                if let made = await make() { await enqueue(made.0, body: made.1) }
            }
            if await deliverDue(client) > 0 { continue }
            await waitForWork(until: await nextDue())
        }
    }

    /// Sends the due rows (the oldest of each endpoint, at most 4 at once); returns how many.
    func deliverDue(_ client: HTTPClient) async -> Int {
        let now = clock.now
        let due: [Delivery]
        do {
            due = try await database.pool.read { db in
                try Delivery.fetchAll(
                    db,
                    sql: """
                        SELECT id, endpoint, url, event, body, attempts FROM webhook_delivery
                        WHERE state = 'pending' AND nextAttemptAt <= ? ORDER BY createdAt, rowid
                        """,
                    arguments: [now])
            }
        } catch {
            logger.error("webhooks: cannot read the pending deliveries", metadata: ["error": "\(error)"])
            return 0
        }
        var chosen: [Delivery] = []
        var endpoints = Set<Int>()
        for row in due where chosen.count < Self.concurrentRequests && endpoints.insert(row.endpoint).inserted {
            chosen.append(row)
        }
        await withTaskGroup(of: Void.self) { group in
            for row in chosen {
                group.addTask { await self.attempt(row, client) }
            }
        }
        return chosen.count
    }

    /// One pending row.
    struct Delivery: FetchableRecord, Decodable, Sendable {
        var id: String
        var endpoint: Int
        var url: String
        var event: String
        var body: Data
        var attempts: Int
    }

    private func attempt(_ row: Delivery, _ client: HTTPClient) async {
        guard row.endpoint < configuration.endpoints.count, configuration.endpoints[row.endpoint].url.absoluteString == row.url else {
            await finish(row, state: "failed", next: clock.now, error: "the endpoint is no longer configured", attempted: false)
            metrics?.delivery(.failed)
            return
        }
        let endpoint = configuration.endpoints[row.endpoint]
        let started = clock.now
        let time = Int(started.timeIntervalSince1970.rounded(.down))
        var request = HTTPClientRequest(url: row.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        request.headers.add(name: "User-Agent", value: "storybridge/\(StoryBridgeVersion.current)")
        request.headers.add(name: "X-StoryBridge-Event", value: row.event)
        request.headers.add(name: "X-StoryBridge-Delivery", value: row.id)
        request.headers.add(
            name: WebhookSignature.header, value: WebhookSignature.value(body: row.body, secret: endpoint.secret, time: time))
        request.body = .bytes(ByteBuffer(bytes: row.body))
        var status: Int?
        var retryAfter: Int?
        var problem: String?
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch {
            problem = "\(error)"
        }
        let attempts = row.attempts + 1
        let verdict = WebhookRetryPolicy.verdict(status: status, attempts: attempts, retryAfter: retryAfter, jitter: jitter())
        let error = status.map { "HTTP \($0)" } ?? problem
        switch verdict {
        case .delivered:
            await finish(row, state: "delivered", next: started, error: nil)
            metrics?.delivery(.delivered)
        case .retry(let after):
            await finish(row, state: "pending", next: started.addingTimeInterval(after), error: error)
            metrics?.delivery(.retried)
        case .failed:
            await finish(row, state: "failed", next: started, error: error)
            metrics?.delivery(.failed)
            logger.warning(
                "webhooks: a delivery failed for good",
                metadata: ["event": "\(row.event)", "url": "\(row.url)", "attempts": "\(attempts)", "error": "\(error ?? "")"])
        }
    }

    private func finish(_ row: Delivery, state: String, next: Date, error: String?, attempted: Bool = true) async {
        do {
            try await database.pool.write { db in
                try db.execute(
                    sql: "UPDATE webhook_delivery SET attempts = attempts + ?, state = ?, nextAttemptAt = ?, lastError = ? WHERE id = ?",
                    arguments: [attempted ? 1 : 0, state, next, error, row.id])
            }
        } catch {
            logger.error("webhooks: cannot record a delivery attempt", metadata: ["id": "\(row.id)", "error": "\(error)"])
        }
    }

    /// When the next pending row is due, if any.
    private func nextDue() async -> Date? {
        try? await database.pool.read { db in
            try Date.fetchOne(db, sql: "SELECT MIN(nextAttemptAt) FROM webhook_delivery WHERE state = 'pending'")
        }
    }

    /// Sleeps until `deadline` (or for an hour without one) unless ``wake()`` is called first.
    private func waitForWork(until deadline: Date?) async {
        let deadline = deadline ?? clock.now.addingTimeInterval(3600)
        let sleeper = Task { [clock] in _ = try? await clock.sleep(until: deadline) }
        let woken = state.withLock { state in
            if state.woken {
                state.woken = false
                return true
            }
            state.sleeper = sleeper
            return false
        }
        if woken { sleeper.cancel() }
        await withTaskCancellationHandler {
            await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        state.withLock { state in
            state.sleeper = nil
            state.woken = false
        }
    }

    private func deleteOld() async {
        let before = clock.now.addingTimeInterval(-Self.keptFor)
        do {
            try await database.pool.write { db in
                try db.execute(sql: "DELETE FROM webhook_delivery WHERE state != 'pending' AND createdAt < ?", arguments: [before])
            }
        } catch {
            logger.error("webhooks: cannot delete old deliveries", metadata: ["error": "\(error)"])
        }
    }
}
