import Foundation
import Hummingbird
import StoryBridge

/// The Prometheus routes (docs/design/FLEET.md §7.2), behind ``FleetAuthMiddleware`` for scrapers
/// (a scraper's device token, or an admin as on `/v1/fleet`):
///
/// - `GET /v1/fleet/prometheus-sd`: HTTP service discovery, a JSON array of target groups, one
///   per kiosk (not revoked) that advertises a metrics URL;
/// - `GET /v1/fleet/metrics`: the hub's own series, `storybridge_fleet_kiosk_up` per kiosk, and
///   the figures of kiosks online or late that advertise no URL (``FleetPrometheusExport``).
struct FleetPrometheusRoutes: Sendable {
    let store: DeviceStore
    let registry: FleetRegistry
    let metrics: FleetMetrics
    /// How many webhook deliveries are pending now (0 without webhooks).
    let pendingDeliveries: @Sendable () async -> Int

    /// The text format's content type.
    static let textContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Registers the routes on `router`, each behind `auth` (audience ``FleetAuthMiddleware/Audience/scrapers``).
    func register(on router: Router<ContentRequestContext>, auth: FleetAuthMiddleware) {
        let group = router.group("v1/fleet").add(middleware: auth)
        group.get("prometheus-sd") { _, _ -> Response in
            let all = try await scraped()
            return FleetAPIRoutes.reply(FleetPrometheusExport.serviceDiscovery(all))
        }
        group.get("metrics") { _, _ -> Response in
            let all = try await scraped()
            var counts: [String: Int] = [:]
            for kiosk in all { counts[kiosk.presence, default: 0] += 1 }
            let open = await registry.connectionCount
            let pending = await pendingDeliveries()
            let text =
                metrics.render(counts: counts, connections: open, pendingDeliveries: pending) + FleetPrometheusExport.metricsText(all)
            var headers = HTTPFields()
            headers[.contentType] = Self.textContentType
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// Every kiosk device not revoked, by name then id, with what the registry knows of it.
    private func scraped() async throws -> [FleetPrometheusExport.Kiosk] {
        let devices = try await BlockingIO.run { [store] () throws(HubStoreError) in try store.list() }
        var kiosks: [(String, String, FleetPrometheusExport.Kiosk)] = []
        for device in devices where device.kind == .kiosk && device.revokedAt == nil {
            let known = await registry.kiosk(device.id)
            let view = FleetKioskView(device: device, kiosk: known, withDetail: false)
            kiosks.append(
                (
                    view.name, view.id,
                    FleetPrometheusExport.Kiosk(
                        name: view.name, hostId: view.hostId ?? known?.hello?.hostId ?? "", labels: view.labels,
                        presence: view.presence, metricsURL: view.metricsURL, figures: known?.lastBeat?.figures)
                ))
        }
        return kiosks.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }
}
