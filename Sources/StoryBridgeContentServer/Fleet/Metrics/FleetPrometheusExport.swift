import Foundation
import StoryBridgeFleet

/// What `GET /v1/fleet/prometheus-sd` and `GET /v1/fleet/metrics` say of the kiosks
/// (docs/design/FLEET.md §7.2), as plain functions of the kiosks' views:
///
/// - ``serviceDiscovery(_:)``: one HTTP SD target group per kiosk that advertises a metrics URL
///   (`--fleet-advertise`), whatever its presence (Prometheus then sees `up` fail by itself);
/// - ``metricsText(_:)``: `storybridge_fleet_kiosk_up{kiosk,host_id}` for every kiosk (1 when
///   `online` or `late`), and for kiosks that advertise no URL and are `online` or `late`, their
///   last beat's `figures` under the kiosk's own metric names with the labels `kiosk` and
///   `host_id`, so that they are gone once the kiosk is `offline`.
///
/// Everything here comes from kiosks and is untrusted: metric names that are not Prometheus
/// names or that would pass for the hub's own (`storybridge_fleet_…`) are left out, label keys
/// that are not `[a-z][a-z0-9_]{0,31}` or that are `kiosk`/`host_id` are left out of the target
/// labels, and label values are escaped.
enum FleetPrometheusExport {
    /// One kiosk as the exports see it.
    struct Kiosk: Sendable {
        /// The device's name on the hub (the `kiosk` label).
        var name: String
        /// Its host id (the `host_id` label; empty before its first hello).
        var hostId: String
        /// The kiosk's labels with the hub's over them.
        var labels: [String: String]
        /// `new`, `online`, `late` or `offline`.
        var presence: String
        /// The URL it advertises (`--fleet-advertise`), as it sent it.
        var metricsURL: String?
        /// Its last beat's figures.
        var figures: [String: Double]?

        /// A kiosk for the exports.
        init(
            name: String, hostId: String, labels: [String: String], presence: String, metricsURL: String?, figures: [String: Double]?
        ) {
            self.name = name
            self.hostId = hostId
            self.labels = labels
            self.presence = presence
            self.metricsURL = metricsURL
            self.figures = figures
        }

        /// Whether the kiosk counts as up: it has beaten within three intervals.
        var isUp: Bool { presence == "online" || presence == "late" }
    }

    /// A Prometheus HTTP SD target group.
    struct TargetGroup: Encodable, Sendable, Equatable {
        /// `["host:port"]`.
        var targets: [String]
        /// `__scheme__`, `__metrics_path__`, `kiosk`, `host_id` and the kiosk's labels.
        var labels: [String: String]
    }

    /// The target groups of the kiosks that advertise a usable URL, in the order given.
    static func serviceDiscovery(_ kiosks: [Kiosk]) -> [TargetGroup] {
        kiosks.compactMap { kiosk in
            guard let url = kiosk.metricsURL, case .success(let target) = MetricsTarget.parse(url) else { return nil }
            var labels = safeLabels(kiosk.labels)
            labels["__scheme__"] = target.scheme
            labels["__metrics_path__"] = target.path
            labels["kiosk"] = kiosk.name
            labels["host_id"] = kiosk.hostId
            return TargetGroup(targets: [target.address], labels: labels)
        }
    }

    /// The kiosks' series in Prometheus text format (version 0.0.4): `storybridge_fleet_kiosk_up`,
    /// then each re-exported metric with one line per kiosk, metric names sorted.
    static func metricsText(_ kiosks: [Kiosk]) -> String {
        var text = "# HELP storybridge_fleet_kiosk_up Whether the kiosk has beaten within three intervals (online or late).\n"
        text += "# TYPE storybridge_fleet_kiosk_up gauge\n"
        for kiosk in kiosks {
            text += "storybridge_fleet_kiosk_up\(labelSet(kiosk)) \(kiosk.isUp ? 1 : 0)\n"
        }
        var families: [String: [(Kiosk, Double)]] = [:]
        for kiosk in kiosks where kiosk.isUp && kiosk.metricsURL == nil {
            for (name, value) in kiosk.figures ?? [:] where isExportable(name) && value.isFinite {
                families[name, default: []].append((kiosk, value))
            }
        }
        for name in families.keys.sorted() {
            text += "# TYPE \(name) \(name.hasSuffix("_total") ? "counter" : "gauge")\n"
            for (kiosk, value) in families[name] ?? [] {
                text += "\(name)\(labelSet(kiosk)) \(format(value))\n"
            }
        }
        return text
    }

    /// Whether a kiosk's figure may be re-exported: a Prometheus metric name, not the hub's.
    static func isExportable(_ name: String) -> Bool {
        name.wholeMatch(of: /[a-zA-Z_:][a-zA-Z0-9_:]{0,199}/) != nil && !name.hasPrefix("storybridge_fleet_")
    }

    /// The kiosk's labels that may be target labels.
    static func safeLabels(_ labels: [String: String]) -> [String: String] {
        labels.filter { key, _ in key.wholeMatch(of: /[a-z][a-z0-9_]{0,31}/) != nil && key != "kiosk" && key != "host_id" }
    }

    /// `{kiosk="…",host_id="…"}`.
    static func labelSet(_ kiosk: Kiosk) -> String {
        "{kiosk=\"\(escape(kiosk.name))\",host_id=\"\(escape(kiosk.hostId))\"}"
    }

    /// A label value as the text format writes it: `\`, `"` and line feeds escaped.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A sample value: integers without a fraction, others as Swift writes a `Double`.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
