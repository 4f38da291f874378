import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// The Prometheus routes (docs/design/FLEET.md §7.2): a real hub on loopback, real kiosk sockets,
/// a scraper's device token. The advertised addresses are only text the hub passes on: nothing
/// connects to them.
@Suite("Fleet hub: Prometheus")
struct FleetPrometheusTests {
    static let advertised = "http://10.20.0.17:9180/__storybridge/metrics"

    @Test("service discovery: one target group per advertising kiosk, with scheme, path, kiosk, host id and labels; who may read it")
    func serviceDiscovery() async throws {
        let (lab, store, _, advertisingToken) = try ContentLab.enrolling("lobby-1", labels: ["site": "berlin"])
        let (_, quietToken) = try store.add(name: "lobby-2")
        _ = try store.add(name: "never-seen")
        let (_, scraperToken) = try store.add(name: "prometheus", kind: .scraper)
        let key = HostKey()
        try await lab.withFleetHub { _, running, client in
            let advertising = try await FleetTestKiosk.connected(
                port: running.port, token: advertisingToken.text, key: key, metricsURL: Self.advertised)
            let quiet = try await FleetTestKiosk.connected(port: running.port, token: quietToken.text)

            let reply = try await client.get("/v1/fleet/prometheus-sd", token: scraperToken.text)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("content-type")?.hasPrefix("application/json") == true)
            let groups = try reply.array()
            #expect(groups.count == 1, "\(reply.text)")
            let group = try #require(groups.first)
            #expect(Set(group.keys) == ["targets", "labels"])
            #expect(group["targets"] as? [String] == ["10.20.0.17:9180"])
            #expect(
                group["labels"] as? [String: String] == [
                    "__scheme__": "http", "__metrics_path__": "/__storybridge/metrics", "kiosk": "lobby-1", "host_id": key.hostId,
                    "site": "berlin",
                ], "the kiosk's own label site=test is under the hub's")

            let admin = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            #expect(try await client.get("/v1/fleet/prometheus-sd", token: admin).status == 200)
            for (token, status) in [(quietToken.text, 403), (nil, 401), (DeviceToken.generate().text, 401)] {
                let refused = try await client.get("/v1/fleet/prometheus-sd", token: token)
                #expect(refused.status == status, "\(refused.text)")
                #expect(!refused.text.contains("lobby") && !refused.text.contains("10.20"), "\(refused.text)")
            }
            advertising.disconnect()
            quiet.disconnect()
            _ = try await advertising.closeFrame()
            _ = try await quiet.closeFrame()
        }
    }

    @Test(
        "metrics: the hub's series, kiosk_up per kiosk, a kiosk's figures re-exported with kiosk and host_id labels, gone once it is offline"
    )
    func metrics() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: FleetHistoryTests.start)
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (_, advertisingToken) = try store.add(name: "lobby-1", now: clock.now)
        let (_, quietToken) = try store.add(name: "lobby \"2\"", now: clock.now)
        _ = try store.add(name: "never-seen", now: clock.now)
        let (_, scraperToken) = try store.add(name: "prometheus", kind: .scraper, now: clock.now)
        let quietKey = HostKey()
        try await lab.withFleetHub(clock: clock) { hub, running, client in
            let advertising = try await FleetTestKiosk.connected(
                port: running.port, token: advertisingToken.text, interval: 10, metricsURL: Self.advertised)
            let quiet = try await FleetTestKiosk.connected(port: running.port, token: quietToken.text, key: quietKey, interval: 10)
            let figures: [String: Double] = [
                "storybridge_connected_viewers": 2, "storybridge_requests_total": 17, "storybridge_upload_queue_depth": 0.5,
                "not a name": 1, "storybridge_fleet_kiosks": 99,
            ]
            var beat = Beat(seq: 1, sentAt: clock.now, instance: "i", uptimeSeconds: 1, version: "0.1.0", name: "lobby-2")
            beat.figures = figures
            try await quiet.beat(beat)
            var advertisingBeat = beat
            advertisingBeat.name = "lobby-1"
            try await advertising.beat(advertisingBeat)

            let reply = try await client.get("/v1/fleet/metrics", token: scraperToken.text)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = try PrometheusText(reply.text)
            #expect(text.values("storybridge_fleet_kiosks", ["state": "online"]) == [2], "\(reply.text)")
            #expect(text.values("storybridge_fleet_kiosks", ["state": "new"]) == [1])
            #expect(text.values("storybridge_fleet_kiosks", ["state": "offline"]) == [0])
            #expect(text.values("storybridge_fleet_connections") == [2])
            #expect(text.values("storybridge_fleet_beats_total") == [2])
            #expect(text.values("storybridge_fleet_beat_bytes_total").first ?? 0 > 100)
            #expect(text.values("storybridge_fleet_webhook_pending") == [0])
            #expect(text.types["storybridge_fleet_history_write_seconds"] == "histogram")
            #expect(text.values("storybridge_fleet_kiosk_up", ["kiosk": "lobby-1"]) == [1])
            #expect(text.values("storybridge_fleet_kiosk_up", ["kiosk": "lobby \"2\"", "host_id": quietKey.hostId]) == [1])
            #expect(text.values("storybridge_fleet_kiosk_up", ["kiosk": "never-seen", "host_id": ""]) == [0])
            #expect(
                text.values("storybridge_connected_viewers") == [2]
                    && text.values("storybridge_connected_viewers", ["kiosk": "lobby \"2\""]) == [2],
                "only the kiosk that advertises no URL is re-exported")
            #expect(text.values("storybridge_requests_total", ["host_id": quietKey.hostId]) == [17])
            #expect(text.types["storybridge_requests_total"] == "counter" && text.types["storybridge_connected_viewers"] == "gauge")
            #expect(text.values("storybridge_upload_queue_depth") == [0.5])
            #expect(text.values("storybridge_fleet_kiosks").count == 4, "a kiosk's figure cannot pass for the hub's series")
            #expect(!reply.text.contains("not a name"))

            for (token, status) in [(quietToken.text, 403), (nil, 401)] {
                let refused = try await client.get("/v1/fleet/metrics", token: token)
                #expect(refused.status == status && !refused.text.contains("lobby"), "\(refused.text)")
            }

            // Three intervals without a beat: offline, and its figures are gone.
            quiet.disconnect()
            _ = try await quiet.closeFrame()
            clock.advance(by: .seconds(31))
            await hub.registry.evaluate(now: clock.instant)
            let later = try PrometheusText(try await client.get("/v1/fleet/metrics", token: scraperToken.text).text)
            #expect(later.values("storybridge_fleet_kiosk_up", ["kiosk": "lobby \"2\""]) == [0])
            #expect(later.values("storybridge_connected_viewers").isEmpty)
            #expect(later.values("storybridge_requests_total").isEmpty)
            #expect(later.values("storybridge_fleet_kiosks", ["state": "offline"]) == [2])
            advertising.disconnect()
            _ = try await advertising.closeFrame()
        }
    }
}
