import AsyncHTTPClient
import CoreMetrics
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Publishes queued analytics records to a StoryIoT-style collector.
///
/// Delivery is at least once: a record is marked sent only after a 2xx answer, and it carries the
/// same entity id (`s-m-id`) on every attempt, so a collector can drop duplicates. Unlike the
/// reference clients it backs off exponentially with jitter while the collector fails, honours
/// `Retry-After`, retries 5xx, 429, 408, time-outs and connection errors, and sets aside a record
/// that gets any other 4xx (kept, counted, listable and re-queueable) so it cannot block the rest.
public actor Uploader {
    /// What one pass did.
    package struct PassResult: Sendable, Hashable {
        package var sent = 0
        package var retried = 0
        package var setAside = 0
        /// The collector could not take records (unreachable, 5xx, 429): the pass stopped early.
        package var collectorFailing = false
        /// Seconds the collector asked to wait, if it did.
        package var retryAfter: Double?
        /// Whether more records were due than one batch held.
        package var moreDue = false

        package init() {}
    }

    let store: AnalyticsStore
    let settings: UploadSettings
    let identity: HostIdentity
    let logger: Logger
    /// Where the uploader reads time: due times, back-off and the pause between passes.
    let clock: any HostClock
    private let client: HTTPClient
    private var consecutiveFailures = 0
    private let counters: UploadCounters?

    /// Creates an uploader. With `metrics`, it counts records sent, retried and set aside
    /// (`storybridge_upload_records_total{outcome=...}`) and failed attempts
    /// (`storybridge_upload_failures_total`). It reads time (due records, back-off, the pause
    /// between passes, the `s-m-lt` header) from `clock`.
    public init(
        store: AnalyticsStore, settings: UploadSettings, identity: HostIdentity, logger: Logger,
        metrics: (any MetricsFactory)? = nil, clock: any HostClock = SystemHostClock()
    ) {
        self.clock = clock
        counters = metrics.map(UploadCounters.init)
        self.store = store
        self.settings = settings
        self.identity = identity
        self.logger = logger
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(
            connect: .milliseconds(Int64(min(settings.requestTimeoutSeconds, 10) * 1000)),
            read: .milliseconds(Int64(settings.requestTimeoutSeconds * 1000)))
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Releases the HTTP client. Call once, after the last pass.
    package func shutdown() async {
        do {
            try await client.shutdown()
        } catch {
            logger.warning("upload: the HTTP client did not shut down cleanly", metadata: ["error": "\(error)"])
        }
    }

    /// Runs passes until the task is cancelled: every `intervalSeconds` while all is well, at
    /// once while a backlog remains, and with growing, jittered pauses while the collector fails.
    /// Cancellation ends the loop between passes: a pass already started finishes, so no request
    /// is abandoned midway and every record it took is marked.
    package func run() async {
        while !Task.isCancelled {
            let result = await Task { await runOnce() }.value
            let delay: Double
            if result.collectorFailing {
                delay = result.retryAfter ?? backoff(consecutiveFailures)
                logger.warning(
                    "upload: collector failing, next pass in \(String(format: "%.1f", delay)) s",
                    metadata: ["failures": "\(consecutiveFailures)"])
            } else {
                delay = result.moreDue ? 0 : settings.intervalSeconds
            }
            do { try await clock.sleep(for: .milliseconds(Int64(delay * 1000))) } catch { break }
        }
    }

    /// One pass: publishes the records that are due, oldest first, up to one batch.
    package func runOnce() async -> PassResult {
        var result = PassResult()
        let due: [OutboxRecord]
        do {
            due = try await store.dueRecords(limit: settings.batchSize + 1, now: clock.now)
        } catch {
            logger.error("upload: cannot read the queue", metadata: ["error": "\(error)"])
            result.collectorFailing = true
            return result
        }
        result.moreDue = due.count > settings.batchSize
        for record in due.prefix(settings.batchSize) {
            if Task.isCancelled { break }
            let outcome = await publish(record)
            do {
                switch outcome {
                case .sent:
                    try await store.markSent(record.recordId)
                    result.sent += 1
                    counters?.sent.increment()
                case .poisoned(let reason):
                    try await store.markSetAside(record.recordId, error: reason)
                    result.setAside += 1
                    counters?.setAside.increment()
                    counters?.failures.increment()
                    logger.warning("upload: record set aside", metadata: ["record": "\(record.recordId)", "reason": "\(reason)"])
                case .retry(let reason, let after):
                    let wait = after ?? backoff(record.attempts)
                    try await store.markRetry(record.recordId, error: reason, next: clock.now.addingTimeInterval(wait))
                    result.retried += 1
                    result.collectorFailing = true
                    result.retryAfter = after
                    counters?.retried.increment()
                    counters?.failures.increment()
                    logger.warning("upload: will retry", metadata: ["record": "\(record.recordId)", "reason": "\(reason)"])
                }
            } catch {
                logger.error("upload: cannot update the queue", metadata: ["error": "\(error)"])
                result.collectorFailing = true
            }
            if result.collectorFailing { break }
        }
        if result.collectorFailing {
            consecutiveFailures += 1
        } else {
            consecutiveFailures = 0
        }
        return result
    }

    /// The uploader's metrics.
    private struct UploadCounters: Sendable {
        let sent: Counter
        let retried: Counter
        let setAside: Counter
        let failures: Counter

        init(_ factory: any MetricsFactory) {
            let records = "storybridge_upload_records_total"
            sent = Counter(label: records, dimensions: [("outcome", "sent")], factory: factory)
            retried = Counter(label: records, dimensions: [("outcome", "retried")], factory: factory)
            setAside = Counter(label: records, dimensions: [("outcome", "set_aside")], factory: factory)
            failures = Counter(label: "storybridge_upload_failures_total", factory: factory)
        }
    }

    enum Outcome {
        case sent
        case retry(String, after: Double?)
        case poisoned(String)
    }

    private func publish(_ record: OutboxRecord) async -> Outcome {
        let url = StoryIoTSignature.publishURL(
            endpoint: settings.endpoint, hub: settings.hub, key: settings.key, secret: settings.secret,
            expirationSeconds: settings.expiration)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = headers(for: record)
        request.body = .bytes(ByteBuffer(string: record.body))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.requestTimeoutSeconds * 1000)))
            let body = try await response.body.collect(upTo: 1 << 20)
            let status = Int(response.status.code)
            let text = String(buffer: body).prefix(300)
            switch status {
            case 200..<300:
                return .sent
            case 408, 429, 500..<600:
                return .retry(
                    "HTTP \(status): \(text)", after: Self.retryAfter(response.headers.first(name: "Retry-After"), now: clock.now))
            default:
                return .poisoned("HTTP \(status): \(text)")
            }
        } catch {
            return .retry(SystemFailure("cannot reach the collector at", settings.endpoint, error: error).description, after: nil)
        }
    }

    private func headers(for record: OutboxRecord) -> HTTPHeaders {
        let now = clock.now
        let offset = Double(TimeZone.current.secondsFromGMT(for: now)) / 3600
        let location = identity.location
        let geo = location.latitude == 0 && location.longitude == 0 ? "off" : "on;\(location.latitude),\(location.longitude)"
        let fields: [(String, String)] = [
            ("Content-Type", "application/json"),
            ("s-m-eid", record.eventId), ("s-m-id", record.entityId), ("s-m-did", settings.deviceId),
            ("s-m-uid", identity.user.id), ("s-m-ct", record.sessionId), ("s-m-cud", "c"),
            ("s-m-m", identity.app.device), ("s-m-sn", settings.deviceId), ("s-m-os", identity.app.os),
            ("s-m-osv", identity.app.osVersion), ("s-m-an", "storybridge"), ("s-m-av", identity.app.appVersion),
            ("s-m-lt", AnalyticsFormat.timestamp(now)),
            ("s-m-tz", offset.rounded() == offset ? String(Int(offset)) : String(offset)),
            ("s-m-geo", geo), ("s-m-lng", identity.app.localization), ("s-m-ns", "LAN"),
        ]
        return HTTPHeaders(fields.map { ($0.0, ASCIIHeader.sanitize($0.1)) })
    }

    /// Exponential back-off with jitter: 1 s · 2^attempts, capped, times a random 0.5–1.
    func backoff(_ attempts: Int) -> Double {
        let exponential = min(settings.maxBackoffSeconds, pow(2, Double(min(attempts, 30))))
        return exponential * Double.random(in: 0.5...1.0)
    }

    /// `Retry-After` in seconds, or as an HTTP date (seconds from `now` until then).
    static func retryAfter(_ value: String?, now: Date) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}
