import CoreMetrics
import Prometheus
import StoryBridge
import Synchronization

/// The host's metrics, kept with swift-metrics in a Prometheus registry of their own (no global
/// bootstrap, so several hosts in one process do not mix) and served as Prometheus text at
/// `/__storybridge/metrics`:
///
/// - `storybridge_requests_total{command, status}`: requests handled; status is the answer's
///   code (`200`, `400`, `504`...) or `unanswered` for fire-and-forget requests; commands no module
///   answers are counted together as `(unknown)`;
/// - `storybridge_request_duration_seconds{command}`: a histogram of the time the host took
///   (a swift-metrics `Timer` backed by a lock-free ``LatencyHistogram``);
/// - `storybridge_connected_viewers`: page connections open now;
/// - `storybridge_upload_queue_depth`, `storybridge_upload_set_aside`, `storybridge_upload_dropped_records`:
///   the upload queue, read from the database at each scrape;
/// - `storybridge_upload_records_total{outcome}` and `storybridge_upload_failures_total`: counted
///   by the uploader when it is given ``factory``;
/// - `storybridge_refused_requests_total{reason}`: requests and WebSockets refused, by reason
///   (`host`, `token`, `origin`, `request`, `connection-limit`);
/// - `storybridge_storage_write_failures_total`, `storybridge_storage_failure_episodes_total` and
///   `storybridge_storage_failing` (1 during an episode of failing writes, such as a full disk).
package final class HostMetrics: Sendable {
    /// The registry the metrics live in.
    package let registry = PrometheusCollectorRegistry()
    /// A swift-metrics factory writing into ``registry``; hand it to the ``Uploader``.
    package let factory: PrometheusMetricsFactory
    /// Per command: its duration histogram and its request counters by answer code (one lookup
    /// per request).
    private let series = Mutex<[String: CommandSeries]>([:])
    /// Refusal counters by reason.
    private let refusals = Mutex<[String: CoreMetrics.Counter]>([:])
    private let connectedViewers: CoreMetrics.Meter
    private let queueDepth: CoreMetrics.Gauge
    private let setAside: CoreMetrics.Gauge
    private let dropped: CoreMetrics.Gauge
    private let storageWriteFailures: CoreMetrics.Counter
    private let storageEpisodes: CoreMetrics.Counter
    private let storageFailing: CoreMetrics.Gauge

    /// A class, so finding a command's series hands out one reference.
    private final class CommandSeries: @unchecked Sendable {
        let histogram: LatencyHistogram
        let duration: CoreMetrics.Timer
        /// Answer code → counter; ``unanswered`` for requests without a GUID. Changed only under
        /// the lock of ``HostMetrics/series``.
        var byCode: [Int: CoreMetrics.Counter] = [:]
        /// `byCode[200]`, the answer nearly every request gets, without a second look-up.
        var success: CoreMetrics.Counter?

        init(histogram: LatencyHistogram, duration: CoreMetrics.Timer) {
            self.histogram = histogram
            self.duration = duration
        }
    }

    private static let unanswered = -1
    /// The `command` label of requests for commands no module answers.
    static let unknownCommand = "(unknown)"

    /// Upper bounds of the request-duration buckets.
    static let durationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
    static let durationName = "storybridge_request_duration_seconds"

    /// Creates an empty set of metrics.
    package init() {
        let factory = PrometheusMetricsFactory(registry: registry)
        self.factory = factory
        connectedViewers = CoreMetrics.Meter(label: "storybridge_connected_viewers", factory: factory)
        queueDepth = CoreMetrics.Gauge(label: "storybridge_upload_queue_depth", factory: factory)
        setAside = CoreMetrics.Gauge(label: "storybridge_upload_set_aside", factory: factory)
        dropped = CoreMetrics.Gauge(label: "storybridge_upload_dropped_records", factory: factory)
        storageWriteFailures = CoreMetrics.Counter(label: "storybridge_storage_write_failures_total", factory: factory)
        storageEpisodes = CoreMetrics.Counter(label: "storybridge_storage_failure_episodes_total", factory: factory)
        storageFailing = CoreMetrics.Gauge(label: "storybridge_storage_failing", factory: factory)
        connectedViewers.set(0)
        storageFailing.record(0)
    }

    /// Counts the failing writes of `health` and shows whether an episode is in progress.
    package func watch(_ health: StorageHealth) {
        health.observe { [weak self] change in
            guard let self else { return }
            switch change {
            case .writeFailed: self.storageWriteFailures.increment()
            case .degraded:
                self.storageEpisodes.increment()
                self.storageFailing.record(1)
            case .recovered: self.storageFailing.record(0)
            }
        }
    }

    /// Counts the requests `bridge` handles, by command and status, and times them. The bridge
    /// keeps these metrics as long as it lives (they do not refer back to it).
    package func watch(_ bridge: Bridge) {
        bridge.observe { exchange in self.record(exchange) }
    }

    func record(_ exchange: BridgeExchange) {
        // Unknown commands share one label: a page cannot grow the metrics by inventing names.
        let command = exchange.isUnknownCommand ? Self.unknownCommand : exchange.request.command
        let code = exchange.response?.errorCode ?? Self.unanswered
        let factory = self.factory
        let (counter, timer) = series.withLock { all -> (CoreMetrics.Counter, CoreMetrics.Timer) in
            let entry: CommandSeries
            if let known = all[command] {
                if code == 200, let counter = known.success { return (counter, known.duration) }
                if let counter = known.byCode[code] { return (counter, known.duration) }
                entry = known
            } else {
                let histogram = LatencyHistogram(bounds: Self.durationBuckets)
                entry = CommandSeries(
                    histogram: histogram,
                    duration: CoreMetrics.Timer(
                        label: Self.durationName, dimensions: [("command", command)], handler: histogram, factory: factory))
                all[command] = entry
            }
            let status = code == Self.unanswered ? "unanswered" : String(code)
            let counter = CoreMetrics.Counter(
                label: "storybridge_requests_total", dimensions: [("command", command), ("status", status)], factory: factory)
            entry.byCode[code] = counter
            if code == 200 { entry.success = counter }
            return (counter, entry.duration)
        }
        counter.increment()
        let (seconds, attoseconds) = exchange.duration.components
        timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A request or WebSocket was refused for `reason` (one of a fixed few labels).
    func refused(reason: String) {
        let factory = self.factory
        let counter = refusals.withLock { all in
            if let known = all[reason] { return known }
            let counter = CoreMetrics.Counter(
                label: "storybridge_refused_requests_total", dimensions: [("reason", reason)], factory: factory)
            all[reason] = counter
            return counter
        }
        counter.increment()
    }

    /// A page connection opened.
    func viewerConnected() { connectedViewers.increment() }

    /// A page connection closed.
    func viewerDisconnected() { connectedViewers.decrement() }

    /// Connection writers running now (`PageConnection.runWriter()`, run by `BridgeSocket`), not exported: each is a
    /// child of its connection's handler, so none runs once its connection has ended.
    package var runningWriters: Int { writers.load(ordering: .relaxed) }
    private let writers = Atomic(0)
    func writerStarted() { writers.add(1, ordering: .relaxed) }
    func writerEnded() { writers.subtract(1, ordering: .relaxed) }

    /// Each counter and gauge of the registry, its labelled series summed: the `figures` of a fleet
    /// beat (docs/design/FLEET.md §4.3). Histograms and summaries are left out. The upload queue
    /// gauges hold what the last ``render(analytics:)`` read.
    package func figures() -> [String: Double] {
        Self.figures(ofPrometheusText: registry.emitToString())
    }

    /// The figures of Prometheus text: per metric name, the sum of its series; metrics typed
    /// `histogram` or `summary` are left out.
    package static func figures(ofPrometheusText text: String) -> [String: Double] {
        var skipped: Set<Substring> = []
        var sums: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4, parts[3] == "histogram" || parts[3] == "summary" { skipped.insert(parts[2]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            let nameEnd = line.firstIndex { $0 == "{" || $0 == " " } ?? line.endIndex
            let name = line[..<nameEnd]
            let base = ["_bucket", "_count", "_sum"].first { name.hasSuffix($0) }.map { name.dropLast($0.count) } ?? name
            guard !name.isEmpty, !skipped.contains(name), !skipped.contains(base), let space = line.lastIndex(of: " "),
                let value = Double(line[line.index(after: space)...]), value.isFinite
            else { continue }
            sums[String(name), default: 0] += value
        }
        return sums
    }

    /// The metrics in Prometheus text format, with the upload queue read from `analytics` now;
    /// throws when the queue cannot be read.
    package func render(analytics: AnalyticsStore) async throws -> String {
        let status = try await analytics.uploadStatus()
        queueDepth.record(status.queued)
        setAside.record(status.setAside)
        dropped.record(status.droppedRecords)
        var text = registry.emitToString()
        let histograms = series.withLock { all in all.map { ($0.key, $0.value.histogram) } }.sorted { $0.0 < $1.0 }
        if !histograms.isEmpty {
            text += "# TYPE \(Self.durationName) histogram\n"
            for (command, histogram) in histograms {
                histogram.emit(
                    name: Self.durationName, labels: "command=\"\(LatencyHistogram.escapeLabel(command))\"", into: &text)
            }
        }
        return text
    }
}
