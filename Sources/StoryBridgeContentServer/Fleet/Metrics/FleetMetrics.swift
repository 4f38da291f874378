import Foundation
import Prometheus
import Synchronization

/// The hub's own Prometheus series (docs/design/FLEET.md §7.2), in a registry of its own as
/// `HostMetrics` keeps the host's (no global bootstrap, so several hubs in one test process do
/// not mix):
///
/// - `storybridge_fleet_kiosks{state}`: kiosks by presence (`new`, `online`, `late`, `offline`),
///   set at each scrape from the registry;
/// - `storybridge_fleet_connections`: kiosk sockets open, set at each scrape;
/// - `storybridge_fleet_beats_total`, `storybridge_fleet_beat_bytes_total`: beats received and
///   their JSON text's bytes;
/// - `storybridge_fleet_refused_connections_total{reason}`: connections refused (`token`,
///   `revoked`, `host_id`, `signature`);
/// - `storybridge_fleet_history_write_seconds`: the history writer's transactions (histogram);
/// - `storybridge_fleet_dashboard_streams`: `/fleet/events` streams open;
/// - `storybridge_fleet_webhook_deliveries_total{outcome}` (`delivered`, `retried`, `failed`) and
///   `storybridge_fleet_webhook_pending`.
package final class FleetMetrics: Sendable {
    /// The registry the series live in.
    package let registry: PrometheusCollectorRegistry
    /// Why a connection was refused: the values of the `reason` label.
    package enum RefusalReason: String, Sendable, CaseIterable {
        case token, revoked
        case hostId = "host_id"
        case signature
    }
    /// The values of the webhook deliveries' `outcome` label.
    package enum DeliveryOutcome: String, Sendable, CaseIterable {
        case delivered, retried, failed
    }

    private let kiosks: [String: Gauge]
    private let connections: Gauge
    private let beats: Counter
    private let beatBytes: Counter
    private let refusals: [RefusalReason: Counter]
    private let historyWrites: DurationHistogram
    private let streams: Gauge
    private let openStreams = Atomic(0)
    private let deliveries: [DeliveryOutcome: Counter]
    private let pending: Gauge

    /// The states `storybridge_fleet_kiosks` is written for (always, 0 when none).
    package static let states = ["new", "online", "late", "offline"]

    /// Every series, at zero.
    package init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        func named(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        }
        let kioskCount = named("storybridge_fleet_kiosks", "Kiosks by presence.")
        kiosks = Dictionary(
            uniqueKeysWithValues: Self.states.map { ($0, registry.makeGauge(descriptor: kioskCount, labels: [("state", $0)])) })
        connections = registry.makeGauge(descriptor: named("storybridge_fleet_connections", "Kiosk sockets open."))
        beats = registry.makeCounter(descriptor: named("storybridge_fleet_beats_total", "Beats received."))
        beatBytes = registry.makeCounter(descriptor: named("storybridge_fleet_beat_bytes_total", "Bytes of the beats received."))
        let refused = named("storybridge_fleet_refused_connections_total", "Kiosk connections refused, by reason.")
        refusals = Dictionary(
            uniqueKeysWithValues: RefusalReason.allCases.map {
                ($0, registry.makeCounter(descriptor: refused, labels: [("reason", $0.rawValue)]))
            })
        historyWrites = registry.makeDurationHistogram(
            descriptor: named("storybridge_fleet_history_write_seconds", "The history writer's transactions."),
            buckets: [.milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2)])
        streams = registry.makeGauge(descriptor: named("storybridge_fleet_dashboard_streams", "Dashboard event streams open."))
        let delivered = named("storybridge_fleet_webhook_deliveries_total", "Webhook delivery attempts, by outcome.")
        deliveries = Dictionary(
            uniqueKeysWithValues: DeliveryOutcome.allCases.map {
                ($0, registry.makeCounter(descriptor: delivered, labels: [("outcome", $0.rawValue)]))
            })
        pending = registry.makeGauge(descriptor: named("storybridge_fleet_webhook_pending", "Webhook deliveries not done yet."))
        streams.set(Int64(0))
        pending.set(Int64(0))
        connections.set(Int64(0))
        for gauge in kiosks.values { gauge.set(Int64(0)) }
    }

    /// A beat of `bytes` bytes arrived.
    func beatReceived(bytes: Int) {
        beats.increment()
        beatBytes.increment(by: Int64(bytes))
    }

    /// A connection was refused for `reason`.
    package func refused(_ reason: RefusalReason) { refusals[reason]?.increment() }

    /// The history writer's transaction took `duration`.
    func historyWritten(in duration: Duration) { historyWrites.record(duration) }

    /// A dashboard stream opened.
    func streamOpened() { streams.set(Int64(openStreams.add(1, ordering: .relaxed).newValue)) }

    /// A dashboard stream closed.
    func streamClosed() { streams.set(Int64(openStreams.subtract(1, ordering: .relaxed).newValue)) }

    /// A webhook delivery attempt ended with `outcome`.
    package func delivery(_ outcome: DeliveryOutcome) { deliveries[outcome]?.increment() }

    /// The hub's series as Prometheus text, with the kiosks by state (`counts`; states not in it
    /// are 0), the open connections and the pending webhook deliveries as of now.
    package func render(counts: [String: Int], connections open: Int, pendingDeliveries: Int) -> String {
        for (state, gauge) in kiosks { gauge.set(Int64(counts[state] ?? 0)) }
        connections.set(Int64(open))
        pending.set(Int64(pendingDeliveries))
        return registry.emitToString()
    }
}
