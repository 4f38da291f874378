import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// Webhook deliveries (docs/design/FLEET.md §8.2, §8.4): a real content server on loopback with
/// webhooks to a real receiver on loopback, the dispatcher's time on a ``ManualHostClock``.
@Suite("Webhooks: delivery")
struct WebhookDeliveryTests {
    /// A whole second, so that the signatures' `t` are exact.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = "a webhook secret of 32 bytes...."

    /// The lab's configuration with one webhook to `receiver` taking every event, waits unscaled.
    static func configuration(_ lab: ContentLab, _ receiver: WebhookReceiver, clock: ManualHostClock, fleet: Bool = false)
        -> ContentServerConfiguration
    {
        var configuration = fleet ? lab.fleetConfiguration(clock: clock) : lab.configuration(clock: clock)
        configuration.webhooks = WebhookConfiguration(
            endpoints: [.init(url: URL(string: receiver.url)!, secret: Array(secret.utf8))],
            queueAlert: .init(records: 10, oldestAgeSeconds: 3600))
        configuration.webhookJitter = { 1 }
        return configuration
    }

    /// Runs `body` with a server of `configuration`, then stops it.
    static func withServer<T>(
        _ configuration: ContentServerConfiguration, _ body: (ContentServer, RunningContentServer) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "test.webhooks")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: configuration, logger: logger)
        return try await server.whileRunning(waitingForPackages: false) { running in try await body(server, running) }
    }

    /// What a delivery test starts from: a lab, its hub database, a receiver on loopback answering
    /// `statuses` first, and a manual clock at ``start``.
    struct Rig {
        let lab: ContentLab
        let database: HubDatabase
        let receiver: WebhookReceiver
        let clock: ManualHostClock

        static func start(statuses: [Int] = []) async throws -> Rig {
            let lab = try ContentLab()
            let database = try HubDatabase(directory: lab.directory)
            let receiver = try await WebhookReceiver.start(statuses: statuses)
            return Rig(lab: lab, database: database, receiver: receiver, clock: ManualHostClock(start: WebhookDeliveryTests.start))
        }

        /// The lab's configuration with one webhook to the receiver, on the clock.
        var configuration: ContentServerConfiguration { WebhookDeliveryTests.configuration(lab, receiver, clock: clock) }
    }

    /// One delivery row.
    struct Stored: Sendable {
        var id: String
        var state: String
        var attempts: Int
        var lastError: String?
    }

    /// The delivery rows, oldest first.
    static func rows(_ database: HubDatabase) async throws -> [Stored] {
        try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, state, attempts, lastError FROM webhook_delivery ORDER BY createdAt, rowid").map { row in
                Stored(id: row["id"], state: row["state"], attempts: row["attempts"], lastError: row["lastError"])
            }
        }
    }

    /// The `t` of a request's signature.
    static func time(_ delivery: WebhookReceiver.Delivery) -> Int? {
        delivery.headers["x-storybridge-signature"]?.split(separator: ",").first { $0.hasPrefix("t=") }.flatMap { Int($0.dropFirst(2)) }
    }

    static let body = Data(#"{"EventId":6,"EventName":"Presentation (Create)","Username":null,"Created":"x","Data":{}}"#.utf8)

    @Test("the signature verifies with the secret; a changed byte, another secret or an old time do not")
    func signature() {
        let secret = Array(Self.secret.utf8)
        let header = WebhookSignature.value(body: Self.body, secret: secret, time: 1_800_000_000)
        #expect(header.hasPrefix("t=1800000000,v1=") && header.count == "t=1800000000,v1=".count + 64)
        #expect(WebhookSignature.verify(header: header, body: Self.body, secret: secret, now: 1_800_000_100))
        var changed = Self.body
        changed[10] ^= 1
        #expect(!WebhookSignature.verify(header: header, body: changed, secret: secret, now: 1_800_000_100))
        #expect(
            !WebhookSignature.verify(
                header: header, body: Self.body, secret: Array("another secret of 32 bytes......".utf8), now: 1_800_000_100))
        #expect(!WebhookSignature.verify(header: header, body: Self.body, secret: secret, now: 1_800_000_301))
    }

    @Test("500, 500, 200: delivered on the third attempt, at +0, +10 s and +70 s of the hub's clock, each signed anew")
    func retries() async throws {
        let rig = try await Rig.start(statuses: [500, 500])
        let (database, receiver, clock) = (rig.database, rig.receiver, rig.clock)
        try await Self.withServer(rig.configuration) { server, _ in
            let dispatcher = try #require(server.webhooks)
            await dispatcher.enqueue(.presentationCreate, body: Self.body)
            _ = try await receiver.waitFor(1)
            clock.advance(by: .seconds(10))
            _ = try await receiver.waitFor(2)
            clock.advance(by: .seconds(60))
            let all = try await receiver.waitFor(3)
            #expect(all.map(Self.time) == [1_800_000_000, 1_800_000_010, 1_800_000_070])
            try await eventually("delivered") { try await Self.rows(database).first?.state == "delivered" }
            let row = try #require(try await Self.rows(database).first)
            #expect(row.attempts == 3)
            for delivery in all {
                #expect(delivery.body == Self.body)
                #expect(delivery.headers["x-storybridge-delivery"] == row.id)
                #expect(delivery.headers["x-storybridge-event"] == "Presentation (Create)")
                #expect(delivery.headers["content-type"] == "application/json; charset=utf-8")
                #expect(delivery.headers["user-agent"]?.hasPrefix("storybridge/") == true)
                let header = try #require(delivery.headers["x-storybridge-signature"])
                #expect(
                    WebhookSignature.verify(
                        header: header, body: delivery.body, secret: Array(Self.secret.utf8), now: Self.time(delivery) ?? 0))
            }
            #expect(await dispatcher.pendingCount() == 0)
        }
        await receiver.stop()
    }

    @Test("400: failed after one attempt, never retried; the next event is still delivered")
    func noRetryOn400() async throws {
        let rig = try await Rig.start(statuses: [400])
        let (database, receiver, clock) = (rig.database, rig.receiver, rig.clock)
        try await Self.withServer(rig.configuration) { server, _ in
            let dispatcher = try #require(server.webhooks)
            await dispatcher.enqueue(.presentationCreate, body: Self.body)
            try await eventually("failed") { try await Self.rows(database).first?.state == "failed" }
            clock.advance(by: .seconds(5 * 3600))
            await dispatcher.enqueue(.presentationDelete, body: Self.body)
            let all = try await receiver.waitFor(2)
            try await eventually("the second delivered") { try await Self.rows(database).last?.state == "delivered" }
            let rows = try await Self.rows(database)
            #expect(rows.count == 2)
            #expect(rows.first?.state == "failed" && rows.first?.attempts == 1 && rows.first?.lastError == "HTTP 400")
            #expect(all.map { $0.headers["x-storybridge-event"] } == ["Presentation (Create)", "Presentation (Delete)"])
            #expect(receiver.received.count == 2)
        }
        await receiver.stop()
    }

    @Test("a pending delivery survives a restart of the server and is delivered by the next one")
    func survivesRestart() async throws {
        let rig = try await Rig.start(statuses: [503])
        let (database, receiver, clock) = (rig.database, rig.receiver, rig.clock)
        try await Self.withServer(rig.configuration) { server, _ in
            await server.webhooks?.enqueue(.presentationUpdate, body: Self.body)
            _ = try await receiver.waitFor(1)
            try await eventually("retry planned") { try await Self.rows(database).first?.attempts == 1 }
        }
        #expect(try await Self.rows(database).first?.state == "pending")
        clock.advance(by: .seconds(15))
        try await Self.withServer(rig.configuration) { _, _ in
            let all = try await receiver.waitFor(2)
            #expect(all[0].headers["x-storybridge-delivery"] == all[1].headers["x-storybridge-delivery"])
            try await eventually("delivered") { try await Self.rows(database).first?.state == "delivered" }
        }
        #expect(try await Self.rows(database).map(\.attempts) == [2])
        await receiver.stop()
    }
}
