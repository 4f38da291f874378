import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// `GET /v1/fleet`, `/v1/fleet/kiosks/{id}` and its history (docs/design/FLEET.md §7.1): real
/// server on loopback, real kiosk sockets, an admin's access token from the password grant.
@Suite("Fleet hub: /v1/fleet")
struct FleetAPITests {
    /// The members every kiosk object has, in the list and in the detail.
    static let kioskMembers: Set<String> = [
        "id", "hostId", "name", "reportedName", "labels", "presence", "since", "lastBeatAt", "intervalSeconds", "version", "decks",
        "viewers", "analytics", "sync", "schedule", "kiosk", "metricsURL", "lastScreenshotAt",
    ]

    @Test("JSON shapes: the list, a kiosk with its last beat and hello, its history; every member present, null when unknown")
    func shapes() async throws {
        let (lab, store, seen, token) = try ContentLab.enrolling("lobby-1", labels: ["site": "berlin", "floor": "1"])
        let (unseen, _) = try store.add(name: "lobby-2")
        let key = HostKey()
        try await lab.withFleetHub { hub, running, client in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text, key: key, interval: 15)
            var beat = FleetHistoryTests.beat(1, queued: 4)
            beat.labels = ["site": "test", "room": "a"]
            beat.decks = [Beat.Deck(id: 12, name: "Cardio", revision: 7)]
            try await kiosk.beat(beat)
            let admin = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)

            let list = try await client.get("/v1/fleet", token: admin)
            #expect(list.status == 200, "\(list.text)")
            #expect(list.header("content-type")?.hasPrefix("application/json") == true)
            let object = try list.object()
            #expect(Set(object.keys) == ["generatedAt", "kiosks"])
            let kiosks = try #require(object["kiosks"] as? [[String: Any]])
            #expect(kiosks.map { $0["name"] as? String } == ["lobby-1", "lobby-2"])
            for row in kiosks { #expect(Set(row.keys) == Self.kioskMembers, "\(row.keys.sorted())") }
            let first = kiosks[0]
            #expect(first["id"] as? String == seen.id)
            #expect(first["hostId"] as? String == key.hostId)
            #expect(first["presence"] as? String == "online")
            #expect(first["labels"] as? [String: String] == ["site": "berlin", "floor": "1", "room": "a"], "the hub's labels win")
            #expect(first["intervalSeconds"] as? Int == 15)
            #expect((first["decks"] as? [[String: Any]])?.first?["revision"] as? Int == 7)
            #expect((first["analytics"] as? [String: Any])?["queued"] as? Int == 4)
            #expect(first["schedule"] is NSNull && first["metricsURL"] is NSNull && first["lastScreenshotAt"] is NSNull)
            let lastBeatAt = (first["lastBeatAt"] as? String).flatMap {
                try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0)
            }
            #expect(lastBeatAt != nil, "\(first["lastBeatAt"] ?? "")")
            let second = kiosks[1]
            #expect(second["id"] as? String == unseen.id)
            #expect(second["presence"] as? String == "new")
            #expect(second["decks"] is NSNull && second["lastBeatAt"] is NSNull && second["hostId"] is NSNull)

            let detail = try await client.get("/v1/fleet/kiosks/\(seen.id)", token: admin)
            #expect(detail.status == 200, "\(detail.text)")
            let detailObject = try detail.object()
            #expect(Set(detailObject.keys) == Self.kioskMembers.union(["lastBeat", "hello"]))
            #expect((detailObject["lastBeat"] as? [String: Any])?["seq"] as? Int == 1)
            #expect((detailObject["hello"] as? [String: Any])?["hostId"] as? String == key.hostId)
            let missing = try await client.get("/v1/fleet/kiosks/d_nosuchdevic", token: admin)
            #expect(missing.status == 404, "\(missing.text)")

            await hub.history.flush()
            try await eventually("the state change written") {
                let history = try await client.get("/v1/fleet/kiosks/\(seen.id)/history?hours=2", token: admin)
                return (try history.object()["stateChanges"] as? [Any])?.count == 1
            }
            let history = try await client.get("/v1/fleet/kiosks/\(seen.id)/history", token: admin)
            let historyObject = try history.object()
            #expect(Set(historyObject.keys) == ["stateChanges", "syncRuns", "minutes"])
            let change = try #require((historyObject["stateChanges"] as? [[String: Any]])?.first)
            #expect(Set(change.keys) == ["at", "from", "to", "reason"])
            #expect(change["from"] as? String == "new" && change["to"] as? String == "online")
            for hours in ["0", "169", "a"] {
                let refused = try await client.get("/v1/fleet/kiosks/\(seen.id)/history?hours=\(hours)", token: admin)
                #expect(refused.status == 400 && refused.text.contains("hours"), "\(hours): \(refused.text)")
            }
            kiosk.disconnect()
            _ = try await kiosk.closeFrame()
        }
    }

    @Test("filters: state (repeated or comma-separated, revoked only when asked), labels joined by AND; bad values are 400")
    func filters() async throws {
        let (lab, store, _, berlinToken) = try ContentLab.enrolling("berlin-online", labels: ["site": "berlin", "floor": "1"])
        _ = try store.add(name: "berlin-new", labels: ["site": "berlin", "floor": "2"])
        _ = try store.add(name: "paris-new", labels: ["site": "paris"])
        _ = try store.add(name: "berlin-revoked", labels: ["site": "berlin"])
        _ = try store.revoke("berlin-revoked")
        _ = try store.add(name: "prometheus", kind: .scraper)
        try await lab.withFleetHub { _, running, client in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: berlinToken.text)
            kiosk.beat(1)
            #expect(await kiosk.next() == .ack(Ack(seq: 1)))
            let admin = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            func names(_ query: String) async throws -> [String] {
                let reply = try await client.get("/v1/fleet\(query)", token: admin)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                return (try reply.object()["kiosks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            #expect(try await names("") == ["berlin-new", "berlin-online", "paris-new"], "no revoked kiosk, no scraper")
            #expect(try await names("?state=revoked") == ["berlin-revoked"])
            #expect(try await names("?state=online") == ["berlin-online"])
            #expect(try await names("?state=new,online") == ["berlin-new", "berlin-online", "paris-new"])
            #expect(try await names("?state=new&state=revoked") == ["berlin-new", "berlin-revoked", "paris-new"])
            #expect(try await names("?label=site:berlin") == ["berlin-new", "berlin-online"])
            #expect(try await names("?label=site:berlin&label=floor:2") == ["berlin-new"])
            #expect(try await names("?label=site%3Aberlin&state=online") == ["berlin-online"])
            #expect(try await names("?label=site:rome") == [])
            for bad in ["?state=asleep", "?label=site", "?label=:berlin", "?label=site:berlin&label=site:paris"] {
                let reply = try await client.get("/v1/fleet\(bad)", token: admin)
                #expect(reply.status == 400, "\(bad): \(reply.text)")
                #expect(!reply.text.contains("berlin-") && !reply.text.contains("paris-"), "\(reply.text)")
            }
            kiosk.disconnect()
            _ = try await kiosk.closeFrame()
        }
    }

    @Test(
        "who may read /v1/fleet by token: an admin's; not a non-admin user's, a service's or a device's (403), nor none or a bad one (401)")
    func tokens() async throws {
        let (lab, store, device, kioskToken) = try ContentLab.enrolling("secret-kiosk-name")
        let (_, scraperToken) = try store.add(name: "secret-scraper-name", kind: .scraper)
        try await lab.withFleetHub { _, _, client in
            let admin = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            let user = try await client.userToken(ContentLab.username, ContentLab.password)
            let service = try await client.serviceToken()
            let cases: [(String?, Int)] = [
                (admin, 200), (user, 403), (service, 403), (kioskToken.text, 403), (scraperToken.text, 403), (nil, 401),
                ("not-a-jwt", 401), (DeviceToken.generate().text, 401), (admin + "x", 401),
            ]
            for path in [
                "/v1/fleet", "/v1/fleet/kiosks/\(device.id)", "/v1/fleet/kiosks/\(device.id)/history",
                "/v1/fleet/kiosks/\(device.id)/checkpoints",
            ] {
                for (token, status) in cases {
                    let reply = try await client.get(path, token: token)
                    #expect(reply.status == status, "\(path) with \(token?.prefix(12) ?? "none"): \(reply.status) \(reply.text)")
                    guard status != 200 else { continue }
                    #expect(Set(try reply.object().keys) == ["error"])
                    #expect(!reply.text.contains("secret-") && !reply.text.contains(device.id), "\(reply.text)")
                }
            }
        }
    }
}
