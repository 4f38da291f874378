import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// The fleet hub's connect route and presence (docs/design/FLEET.md §4, §5.3): real servers on
/// loopback, real kiosk sockets, a real hub.sqlite, and a real `content-server` process for the
/// revoke.
@Suite("Fleet hub: connect and presence")
struct FleetHubTests {
    /// A server of `lab` with the hub on (on `clock` when given), its hub, and the running server.
    private func withHub<T>(
        _ lab: ContentLab, clock: (any HostClock)? = nil, _ body: (FleetHub, RunningContentServer) async throws -> T
    ) async throws -> T {
        var configuration = lab.configuration(clock: clock)
        configuration.fleet = true
        var logger = Logger(label: "test.fleet-hub")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: configuration, logger: logger)
        let hub = try #require(server.fleet)
        return try await server.whileRunning(waitingForPackages: false) { running in try await body(hub, running) }
    }

    /// A raw upgrade request to the connect route, with `headers`.
    private func upgrade(_ port: Int, _ headers: [String], upgrade: Bool = true) async throws -> RawHTTP.Response {
        let lines =
            ["GET \(FleetWire.connectPath) HTTP/1.1", "Host: 127.0.0.1:\(port)"]
            + (upgrade
                ? ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: c3Rvcnlicmlkz2UtdGVzdA==", "Sec-WebSocket-Version: 13"]
                : ["Connection: close"]) + headers + ["", ""]
        return try await RawHTTP.exchange(port: port, lines.joined(separator: "\r\n"), timeout: 10, stopWhenComplete: true)
    }

    /// The state_change rows of `deviceId`: (from, to, reason).
    private func stateChanges(_ lab: ContentLab, _ deviceId: String) throws -> [String] {
        let database = try HubDatabase(directory: lab.directory)
        return try database.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \"from\", \"to\", reason FROM state_change WHERE deviceId = ? ORDER BY rowid", arguments: [deviceId]
            )
            .map { "\($0["from"] as String)→\($0["to"] as String) (\($0["reason"] as String))" }
        }
    }

    @Test("presence on a manual clock: online at the beat, late at 2·I, offline at 3·I, back online; no flap on reconnect; bye")
    func presence() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock()
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (device, token) = try store.add(name: "lobby-1", now: clock.now)
        let key = HostKey()
        try await withHub(lab, clock: clock) { hub, running in
            let kiosk = FleetTestKiosk(port: running.port, token: token.text, key: key, interval: 2)
            guard case .challenge = await kiosk.next(), case .welcome(let welcome) = await kiosk.next() else {
                Issue.record("no challenge and welcome")
                return
            }
            #expect(welcome.device == device.id)
            #expect(try store.list().first?.hostId == key.hostId, "the first hello binds the host id")
            let start = clock.now
            kiosk.beat(1)
            #expect(await kiosk.next() == .ack(Ack(seq: 1)))
            #expect(await hub.registry.kiosk(device.id)?.machine.presence == .online)

            // Just before 2·I nothing changes; at 2·I late, dated at the deadline.
            clock.advance(by: .milliseconds(3750))
            #expect(await hub.registry.evaluate(now: clock.instant).isEmpty)
            clock.advance(by: .milliseconds(250))
            let late = await hub.registry.evaluate(now: clock.instant)
            #expect(late.map(\.to) == [.late])
            #expect(late.first?.at == start.addingTimeInterval(4))
            #expect(late.first?.reason == "no beat for 4 s")
            // The ticker's next evaluations (every 250 ms) reach 3·I: offline by 3·I + 0.25 s.
            clock.advance(by: .milliseconds(1750))
            #expect(await hub.registry.evaluate(now: clock.instant).isEmpty)
            clock.advance(by: .milliseconds(250))
            let offline = await hub.registry.evaluate(now: clock.instant)
            #expect(offline.map(\.to) == [.offline])
            #expect(offline.first?.at == start.addingTimeInterval(6))
            #expect(await hub.registry.kiosk(device.id)?.machine.since == start.addingTimeInterval(6))

            kiosk.beat(2)
            #expect(await kiosk.next() == .ack(Ack(seq: 2)))
            #expect(await hub.registry.kiosk(device.id)?.machine.presence == .online)

            // A reconnect within the interval: no transition at all.
            kiosk.disconnect()
            _ = try await kiosk.closeFrame()
            let again = FleetTestKiosk(port: running.port, token: token.text, key: key, interval: 2)
            guard case .challenge = await again.next(), case .welcome = await again.next() else {
                Issue.record("no welcome on reconnect")
                return
            }
            clock.advance(by: .seconds(1))
            again.beat(3)
            #expect(await again.next() == .ack(Ack(seq: 3)))
            #expect(await hub.registry.evaluate(now: clock.instant).isEmpty)
            #expect(await hub.registry.connectionCount == 1)

            // bye: offline at once.
            again.send(.bye(Bye()))
            try await eventually("offline after bye") { await hub.registry.kiosk(device.id)?.machine.presence == .offline }
            again.disconnect()
            _ = try await again.closeFrame()
        }
        #expect(
            try stateChanges(lab, device.id) == [
                "new→online (beat)", "online→late (no beat for 4 s)", "late→offline (no beat for 6 s)", "offline→online (beat)",
                "online→offline (stopped)",
            ])
        // A restarted hub restores the kiosk as saved; kiosk_state holds its last beat.
        let saved = try HubDatabase(directory: lab.directory).pool.read { db in
            try Row.fetchOne(db, sql: "SELECT presence, lastBeat, hello FROM kiosk_state WHERE deviceId = ?", arguments: [device.id])
        }
        #expect(saved?["presence"] == "offline")
        #expect((saved?["lastBeat"] as String?)?.contains("\"seq\":3") == true)
        #expect((saved?["hello"] as String?)?.contains(key.hostId) == true)
    }

    @Test("a hub restart: a kiosk saved online goes late then offline counting from the hub's start, with that reason")
    func restartCountsFromStart() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock()
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (device, _) = try store.add(name: "k", now: clock.now)
        let savedAt = clock.now
        try await store.database.pool.write { db in
            try db.execute(
                sql: "UPDATE kiosk_state SET presence = 'online', since = ?, intervalSeconds = 10 WHERE deviceId = ?",
                arguments: [savedAt, device.id])
        }
        clock.advance(by: .seconds(3600))
        let registry = try FleetRegistry(store: store, clock: clock, logger: Logger(label: "test"))
        clock.advance(by: .seconds(19))
        #expect(await registry.evaluate(now: clock.instant).isEmpty, "the hour the hub was down does not count")
        clock.advance(by: .seconds(1))
        #expect(await registry.evaluate(now: clock.instant).map(\.reason) == ["no beat since the hub started"])
        clock.advance(by: .seconds(10))
        let offline = await registry.evaluate(now: clock.instant)
        #expect(offline.map(\.to) == [.offline] && offline.map(\.reason) == ["no beat since the hub started"])
    }

    @Test(
        "refusals: no token, unknown and revoked tokens 401 (socket closed 4401), a scraper's 403 (4403), a foreign Host 421; no answer names a kiosk"
    )
    func refusals() async throws {
        let (lab, store, _, kiosk) = try ContentLab.enrolling("lobby-secret-name")
        let (_, scraper) = try store.add(name: "prometheus-secret-name", kind: .scraper)
        let (_, revoked) = try store.add(name: "revoked-secret-name")
        _ = try store.revoke("revoked-secret-name")
        try await withHub(lab) { _, running in
            let cases: [([String], Int, String)] = [
                ([], 401, "a device token is needed"),
                (["Authorization: Basic eDp5"], 401, "a device token is needed"),
                (["Authorization: Bearer \(DeviceToken.generate().text)"], 401, "not known"),
                (["Authorization: Bearer sbd_garbage"], 401, "not known"),
                (["Authorization: Bearer \(revoked.text)"], 401, "revoked"),
                (["Authorization: Bearer \(scraper.text)"], 403, "scraper"),
            ]
            for (headers, status, message) in cases {
                // Without the upgrade: the status and a JSON body.
                let response = try await upgrade(running.port, headers, upgrade: false)
                #expect(response.status == status, "\(headers): \(response.status) \(response.text)")
                #expect(response.text.contains(message), "\(response.text)")
                #expect(!response.text.contains("secret-name"))
                #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
                // As a WebSocket (what a kiosk does): closed at once with 4000 + the status and the same words.
                let closed = try #require(try await RawHTTP.webSocketRefusal(port: running.port, FleetWire.connectPath, headers: headers))
                #expect(Int(closed.code) == 4000 + status, "\(headers): \(closed)")
                #expect(closed.reason.contains(message) && !closed.reason.contains("secret-name"))
            }
            let plain = try await upgrade(running.port, ["Authorization: Bearer \(kiosk.text)"], upgrade: false)
            #expect(plain.status == 400, "\(plain.text)")
            let foreign = try await RawHTTP.exchange(
                port: running.port,
                "GET \(FleetWire.connectPath) HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer \(kiosk.text)\r\nConnection: close\r\n\r\n",
                timeout: 10, stopWhenComplete: true)
            #expect(foreign.status == 421)
        }
        // Without --fleet the route does not exist.
        try await lab.withRunningServer { _, running in
            let response = try await upgrade(running.port, ["Authorization: Bearer \(kiosk.text)"], upgrade: false)
            #expect(response.status == 404, "\(response.text)")
        }
    }

    @Test(
        "a token bound to one host key is closed with 4403 from another; a hello signed for another origin too; a newer connection replaces an older one (4409)"
    )
    func binding() async throws {
        let (lab, store, device, token) = try ContentLab.enrolling("lobby-1")
        let key = HostKey()
        try await withHub(lab) { _, running in
            let first = FleetTestKiosk(port: running.port, token: token.text, key: key)
            guard case .challenge = await first.next(), case .welcome = await first.next() else {
                Issue.record("no welcome")
                return
            }
            // The same token on another machine (another host key): refused after the hello.
            let copied = FleetTestKiosk(port: running.port, token: token.text, key: HostKey())
            let copiedClose = try await copied.closeFrame()
            #expect(copiedClose?.closeCode == .unknown(FleetWire.CloseCode.forbidden))
            #expect(copiedClose?.reason?.contains("belongs to another host") == true)
            #expect(try store.list().first { $0.id == device.id }?.hostId == key.hostId)

            // A hello signed for another hub's origin: refused.
            let relayed = FleetTestKiosk(port: running.port, token: token.text, key: key, origin: "https://other-hub.lan:8095")
            let relayedClose = try await relayed.closeFrame()
            #expect(relayedClose?.closeCode == .unknown(FleetWire.CloseCode.forbidden))
            #expect(relayedClose?.reason == "the signature does not verify")

            // The right key again: the new connection wins, the first is closed 4409.
            let second = FleetTestKiosk(port: running.port, token: token.text, key: key)
            guard case .challenge = await second.next(), case .welcome = await second.next() else {
                Issue.record("no welcome for the newer connection")
                return
            }
            let firstClose = try await first.closeFrame()
            #expect(firstClose?.closeCode == .unknown(FleetWire.CloseCode.replaced))
            #expect(firstClose?.reason == "replaced by a newer connection")
            second.disconnect()
            _ = try await second.closeFrame()
        }
    }

    @Test(
        "a token revoked by the CLI while connected is closed (4401, by the hub's revocation check) and refused on reconnect, without a restart"
    )
    func revokeWhileConnected() async throws {
        let (lab, _, _, token) = try ContentLab.enrolling("lobby-1")
        let server = try await ContentServerProcess.start(
            lab, ["--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret, "--fleet"])
        defer { server.process.terminate() }
        #expect(server.banner.contains("Fleet hub on: kiosks connect to"), "\(server.banner)")
        let port = try #require(URL(string: server.baseURL)?.port)
        let key = HostKey()
        let kiosk = FleetTestKiosk(port: port, token: token.text, key: key)
        guard case .challenge = await kiosk.next(), case .welcome = await kiosk.next() else {
            Issue.record("no welcome")
            return
        }
        kiosk.beat(1)
        #expect(await kiosk.next() == .ack(Ack(seq: 1)))

        let revoke = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: ["content-server", "device", "revoke", "lobby-1", "--data-dir", lab.directory.root.path],
            output: .pipe(Pipe()), error: .pipe(Pipe()))
        #expect(await revoke.exit() == 0)
        // The close comes from the hub's revocation check (every 250 ms of its ticker): its code
        // and reason say so. How soon is not asserted here: on a loaded machine no wall-clock
        // bound holds (1.23 s was seen at load average 23), and timing is the benchmarks' part.
        let close = try await kiosk.closeFrame()
        #expect(close?.closeCode == .unknown(FleetWire.CloseCode.revoked))
        #expect(close?.reason == "device revoked")

        let again = try #require(
            try await RawHTTP.webSocketRefusal(port: port, FleetWire.connectPath, headers: ["Authorization: Bearer \(token.text)"]))
        #expect(again.code == FleetWire.CloseCode.revoked)
        #expect(again.reason == "the device token was revoked")
        #expect(await server.stop())
    }
}
