import Foundation
import GRDB
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// What the webhooks say (docs/design/FLEET.md §8.3): the catalog's presentation events in the
/// vendor's envelope, and the kiosk events from real kiosk sockets, received by a real receiver
/// on loopback.
@Suite("Webhooks: events")
struct WebhookEventTests {
    /// The vendor's presentation members (`Data`).
    static let presentationMembers: Set<String> = [
        "ClientId", "Created", "Id", "LongDescription", "Name", "Order", "Revision", "ShortDescription", "Skip", "DebugModeEnabled",
        "Updated", "MapEnabled", "MapType", "NeedConfirmation", "PreviewMode", "Map",
    ]
    static let envelopeMembers: Set<String> = ["EventId", "EventName", "Username", "Created", "Data"]

    /// Whether the hub's first catalog scan has been made.
    static func seeded(_ database: HubDatabase) async throws -> Bool {
        try await database.pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM hub_meta WHERE key = 'catalogSeeded'") ?? false
        }
    }

    @Test(
        "install, reinstall, remove: Create, Update with the new revision, Delete, in the vendor's members; nothing for the library there at the first start"
    )
    func catalog() async throws {
        let lab = try ContentLab()
        let database = try HubDatabase(directory: lab.directory)
        try lab.install(id: 11, title: "there before")
        let receiver = try await WebhookReceiver.start()
        let clock = ManualHostClock(start: WebhookDeliveryTests.start)
        try await WebhookDeliveryTests.withServer(WebhookDeliveryTests.configuration(lab, receiver, clock: clock)) { _, _ in
            try await eventually("the first scan") { try await Self.seeded(database) }
            try lab.install(id: 12, title: "new")
            let created = try await receiver.waitFor(1)
            try lab.install(id: 12, title: "changed")
            _ = try await receiver.waitFor(2)
            try lab.library.remove(id: 12)
            let all = try await receiver.waitFor(3)
            #expect(all.count == 3 && created.count == 1, "\(all.map(\.eventName))")
            #expect(all.map(\.eventName) == ["Presentation (Create)", "Presentation (Update)", "Presentation (Delete)"])
            let objects = try all.map { try $0.object() }
            #expect(objects.map { $0["EventId"] as? Int } == [6, 7, 8])
            for object in objects {
                #expect(Set(object.keys) == Self.envelopeMembers)
                #expect(object["Username"] is NSNull)
                let data = try #require(object["Data"] as? [String: Any])
                #expect(Set(data.keys) == Self.presentationMembers, "\(data.keys.sorted())")
                #expect(data["Id"] as? Int == 12 && data["ClientId"] as? Int == 7 && data["Name"] as? String == "Deck 12")
            }
            let revisions = objects.map { ($0["Data"] as? [String: Any])?["Revision"] as? Int }
            #expect(revisions == [1, 2, 2], "Update carries the new revision, Delete the last one sent")
            let data = objects.map { $0["Data"] as? [String: Any] ?? [:] }
            #expect(data[1]["Created"] as? String == data[0]["Created"] as? String, "Created stays the first revision's")
            #expect(all.allSatisfy { $0.headers["x-storybridge-event"] == $0.eventName })
        }
        await receiver.stop()
    }

    @Test("a restart compares with what the last run saw: a deck installed while the server was down gives one Create")
    func changesWhileDown() async throws {
        let rig = try await WebhookDeliveryTests.Rig.start()
        let (lab, database, receiver, configuration) = (rig.lab, rig.database, rig.receiver, rig.configuration)
        try await WebhookDeliveryTests.withServer(configuration) { _, _ in
            try await eventually("the first scan") { try await Self.seeded(database) }
        }
        try lab.install(id: 21)
        try await WebhookDeliveryTests.withServer(configuration) { _, _ in
            let all = try await receiver.waitFor(1)
            #expect(all.map(\.eventName) == ["Presentation (Create)"])
        }
        await receiver.stop()
    }

    @Test("kiosk events from real kiosk sockets: sync failed, queue over its limit (armed again under 80 %), offline, back online")
    func kioskEvents() async throws {
        let lab = try ContentLab()
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let clock = ManualHostClock(start: WebhookDeliveryTests.start)
        let (device, token) = try store.add(name: "lobby-1", labels: ["site": "berlin"], now: clock.now)
        let receiver = try await WebhookReceiver.start()
        let key = HostKey()
        try await WebhookDeliveryTests.withServer(WebhookDeliveryTests.configuration(lab, receiver, clock: clock, fleet: true)) {
            _, running in
            func beat(_ seq: Int, queued: Int = 0, failing: Bool = false, unreachable: Int? = nil) -> Beat {
                var beat = Beat(seq: seq, sentAt: clock.now, instance: "i", uptimeSeconds: seq, version: "0.1.0", name: "lobby-1")
                beat.analytics = Beat.Analytics(queued: queued, oldestAgeSeconds: queued == 0 ? nil : 60)
                beat.sync = Beat.Sync(
                    lastRunAt: clock.now, result: failing ? "failed" : "ok", exitStatus: failing ? 69 : 0,
                    summary: failing ? "the server could not be reached" : "up to date", failingSince: failing ? clock.now : nil,
                    nextRunAt: nil)
                beat.hubUnreachable = unreachable.map { Beat.HubUnreachable(since: clock.now, seconds: $0, attempts: 3) }
                return beat
            }
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text, key: key)
            try await kiosk.beat(beat(1))
            try await kiosk.beat(beat(2, failing: true))
            try await kiosk.beat(beat(3, failing: true))
            try await kiosk.beat(beat(4, queued: 12))
            try await kiosk.beat(beat(5, queued: 11))
            try await kiosk.beat(beat(6, queued: 7))
            try await kiosk.beat(beat(7, queued: 10))
            kiosk.send(.bye(Bye()))
            _ = try await receiver.waitFor(4)
            kiosk.disconnect()
            _ = try await kiosk.closeFrame()
            clock.advance(by: .seconds(90))
            let again = try await FleetTestKiosk.connected(port: running.port, token: token.text, key: key)
            try await again.beat(beat(1, unreachable: 88))
            let all = try await receiver.waitFor(5)
            #expect(
                all.map(\.eventName) == [
                    "Kiosk (SyncFailed)", "Kiosk (QueueOverLimit)", "Kiosk (QueueOverLimit)", "Kiosk (Offline)", "Kiosk (Online)",
                ])
            let objects = try all.map { try $0.object() }
            #expect(objects.map { $0["EventId"] as? Int } == [103, 104, 104, 101, 102])
            let data = objects.map { $0["Data"] as? [String: Any] ?? [:] }
            for item in data {
                #expect(
                    item["Id"] as? String == device.id && item["Name"] as? String == "lobby-1" && item["HostId"] as? String == key.hostId)
                #expect(item["Labels"] as? [String: String] == ["site": "berlin"], "the hub's label over the kiosk's site=test")
            }
            #expect((data[0]["Sync"] as? [String: Any])?["ExitStatus"] as? Int == 69)
            #expect((data[1]["Analytics"] as? [String: Any])?["Queued"] as? Int == 12)
            #expect((data[2]["Analytics"] as? [String: Any])?["Queued"] as? Int == 10)
            #expect(data[3]["Reason"] as? String == "stopped")
            #expect(data[4]["OfflineSeconds"] as? Int == 90 && data[4]["HubUnreachableSeconds"] as? Int == 88)
            again.disconnect()
            _ = try await again.closeFrame()
        }
        await receiver.stop()
    }
}
