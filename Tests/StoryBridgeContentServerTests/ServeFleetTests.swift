import Foundation
import GRDB
import HummingbirdWSClient
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// `serve --fleet` as a child process reporting to a hub on loopback (docs/design/FLEET.md §3).
@Suite("Fleet: serve reports to the hub")
struct ServeFleetTests {
    /// The demo presentation of the repository's fixtures (served from a folder: a library this test
    /// process holds open would share its database with the child).
    private static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/presentations/demo")

    /// A hub of `lab` on `port` (0: any), with a real clock.
    private func startHub(_ lab: ContentLab, port: Int = 0) async throws -> (FleetHub, RunningContentServer) {
        var configuration = lab.configuration()
        configuration.fleet = true
        configuration.port = port
        var logger = Logger(label: "test.fleet-hub")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: configuration, logger: logger)
        return (try #require(server.fleet), try await server.start(waitingForPackages: false))
    }

    /// `storybridge serve` of `kiosk`'s library with `arguments`, once it listens.
    private func startServe(_ kiosk: ContentLab, _ arguments: [String], environment: [String: String]? = nil) async throws
        -> LaunchedProcess
    {
        let output = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: ["serve", Self.demo.path, "--port", "0", "--data-dir", Self.kioskData(kiosk).path, "--no-watch"] + arguments,
            environment: environment, output: .pipe(output), error: .discard)
        let banner = await readUntil("Ctrl-C", from: output)
        guard banner.contains("Ctrl-C") else {
            process.kill()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(banner)"])
        }
        return process
    }

    /// A hub's lab with a device named `name`, the kiosk's lab, and the device's token in the
    /// kiosk's file `fleet-token` (0600, with a trailing newline).
    private func enrolledKiosk(_ name: String) throws -> (
        hubLab: ContentLab, kiosk: ContentLab, device: Device, token: DeviceToken, tokenFile: String
    ) {
        let hubLab = try ContentLab()
        let kiosk = try ContentLab()
        let (device, token) = try DeviceStore(database: try HubDatabase(directory: hubLab.directory)).add(name: name)
        let tokenFile = kiosk.folder.appendingPathComponent("fleet-token").path
        #expect(
            FileManager.default.createFile(
                atPath: tokenFile, contents: Data((token.text + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        return (hubLab, kiosk, device, token, tokenFile)
    }

    /// The kiosk's own data folder.
    private static func kioskData(_ kiosk: ContentLab) -> URL { kiosk.folder.appendingPathComponent("kiosk-data") }

    /// Waits (real time) until `registry` has a beat of `deviceId` that satisfies `condition`.
    private func beat(
        _ registry: FleetRegistry, _ deviceId: String, within limit: Duration = .seconds(30),
        where condition: (Beat) -> Bool = { _ in true }
    ) async throws -> Beat? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let beat = await registry.kiosk(deviceId)?.lastBeat, condition(beat) { return beat }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test("serve --fleet reports: hello with its host id, beats with its decks; the token is not on its command line")
    func reports() async throws {
        let (hubLab, kiosk, device, token, tokenFile) = try enrolledKiosk("lobby-1")
        let (hub, running) = try await startHub(hubLab)
        let serve = try await startServe(
            kiosk,
            [
                "--fleet", "http://127.0.0.1:\(running.port)", "--fleet-token-file", tokenFile, "--fleet-interval", "1s",
                "--fleet-name", "kiosk-a", "--fleet-label", "site=test",
            ])
        defer { serve.kill() }
        let first = try #require(try await beat(hub.registry, device.id) { $0.decks?.isEmpty == false })
        #expect(first.name == "kiosk-a" && first.labels == ["site": "test"])
        #expect(first.decks?.first?.id == 1 && first.decks?.first?.name == "demo")
        #expect(first.memory != nil && first.disk != nil && first.analytics != nil && first.figures != nil)
        #expect(first.sync == nil, "no --sync-every: sync is null")
        // The health endpoint's verdict; a folder served from disk has no sync state and no pin.
        #expect(first.health == Beat.Health(status: "healthy", problems: []), "\(String(describing: first.health))")
        #expect(first.decks?.first?.state == "ready" && first.decks?.first?.pinnedRevision == nil)
        let kioskKey = try #require(try HostKey.read(at: HostKey.file(in: DataDirectory(Self.kioskData(kiosk))).path))
        #expect(await hub.registry.kiosk(device.id)?.hello?.hostId == kioskKey.hostId)
        #expect(await hub.registry.kiosk(device.id)?.machine.presence == .online)
        // A second beat a second later.
        #expect(try await beat(hub.registry, device.id) { $0.seq > first.seq } != nil)
        // The token is in no argument of the process.
        let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(serve.processIdentifier)/cmdline"))
        #expect(commandLine.range(of: Data(token.secret.utf8)) == nil)
        serve.terminate()
        #expect(await serve.exit() == 0)
        // A graceful stop says bye: offline at once.
        let deadline = ContinuousClock.now + .seconds(10)
        while await hub.registry.kiosk(device.id)?.machine.presence != .offline, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await hub.registry.kiosk(device.id)?.machine.presence == .offline)
        await running.stop()
    }

    @Test(
        "the config's fleet section sets the hub, token file, interval, name and labels (an option on the command line wins); its schedule is in the beat and the hello"
    )
    func fromConfig() async throws {
        let (hubLab, kiosk, device, _, tokenFile) = try enrolledKiosk("lobby-2")
        let (hub, running) = try await startHub(hubLab)
        let config = kiosk.folder.appendingPathComponent("serve.json")
        let fleet: JSONValue = [
            "url": .string("http://127.0.0.1:\(running.port)"), "tokenFile": .string(tokenFile), "interval": "1s",
            "name": "from-config", "labels": ["site": "config", "floor": "2"],
        ]
        let schedule: JSONValue = ["timeZone": "UTC", "default": ["presentation": 1]]
        try Data(JSONValue.object(["fleet": fleet, "schedule": schedule]).jsonString().utf8).write(to: config)
        let serve = try await startServe(kiosk, ["--config", config.path, "--fleet-label", "site=cli"])
        defer { serve.kill() }
        let first = try #require(try await beat(hub.registry, device.id) { $0.decks?.isEmpty == false })
        #expect(first.name == "from-config")
        #expect(first.labels == ["site": "cli", "floor": "2"])
        // The config's schedule: its default plays, and the host has that deck.
        #expect(first.schedule?.presentation == 1 && first.schedule?.source == "default" && first.schedule?.installed == true)
        // The hello carries the whole schedule as understood, in the configuration's shape.
        // (The zone as the system's database names it: Foundation calls UTC "GMT".)
        let helloSchedule = await hub.registry.kiosk(device.id)?.hello?.schedule
        let zone = try #require(TimeZone(identifier: "UTC")).identifier
        #expect(
            helloSchedule == ["timeZone": .string(zone), "default": ["presentation": 1], "weekly": [], "exceptions": []],
            "\(helloSchedule?.jsonString() ?? "none")")
        // The interval of the config: a second beat within a few seconds.
        #expect(try await beat(hub.registry, device.id, within: .seconds(10)) { $0.seq > first.seq } != nil)
        serve.terminate()
        #expect(await serve.exit() == 0)
        await running.stop()
    }

    /// The `lastBeat` of `deviceId` in the hub database of `lab`, once one satisfies `condition`.
    private func storedBeat(
        _ lab: ContentLab, _ deviceId: String, within limit: Duration = .seconds(30), where condition: (Beat) -> Bool
    ) async throws -> Beat? {
        let database = try HubDatabase(directory: lab.directory)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let text = try await database.pool.read { db in
                try String.fetchOne(db, sql: "SELECT lastBeat FROM kiosk_state WHERE deviceId = ?", arguments: [deviceId])
            }
            if let text, case .beat(let beat) = try FleetWire.decode(Data(text.utf8)), condition(beat) { return beat }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// The first beat of `deviceId` in the hub's history (table `beat`, every beat as received)
    /// for which `condition` holds, once there is one; nil after `limit`. For what only one beat
    /// carries: the kiosk's last beat is replaced a beat interval later, and a poll of it on a
    /// loaded machine can miss it.
    private func firstBeatInHistory(
        _ lab: ContentLab, _ deviceId: String, within limit: Duration, where condition: (Beat) -> Bool
    ) async throws -> Beat? {
        let database = try HubDatabase(directory: lab.directory)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let texts = try await database.pool.read { db in
                try Data.fetchAll(db, sql: "SELECT json FROM beat WHERE deviceId = ? ORDER BY receivedAt", arguments: [deviceId])
            }
            for text in texts {
                if case .beat(let beat) = try FleetWire.decode(text), condition(beat) { return beat }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    @Test(
        "serve's beats carry its newest audit checkpoint (config audit.checkpointEvery); the hub keeps it, and audit verify --checkpoints of what the hub holds is clean"
    )
    func checkpoints() async throws {
        let (hubLab, kiosk, device, _, tokenFile) = try enrolledKiosk("lobby-audit")
        let (_, running) = try await startHub(hubLab)
        let config = kiosk.folder.appendingPathComponent("serve.json")
        try Data(JSONValue.object(["audit": ["checkpointEvery": 2]]).jsonString().utf8).write(to: config)
        let serve = try await startServe(
            kiosk,
            [
                "--config", config.path, "--fleet", "http://127.0.0.1:\(running.port)", "--fleet-token-file", tokenFile, "--fleet-interval",
                "1s",
            ])
        defer { serve.kill() }
        // The start's entries reach a multiple of 2: the host signs a checkpoint before the first beat.
        let beat = try #require(try await storedBeat(hubLab, device.id) { $0.checkpoint != nil })
        let kioskKey = try #require(try HostKey.read(at: HostKey.file(in: DataDirectory(Self.kioskData(kiosk))).path))
        #expect(beat.checkpoint?["signed"]?["hostId"]?.stringValue == kioskKey.hostId)
        let database = try HubDatabase(directory: hubLab.directory)
        var held: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while held.isEmpty, ContinuousClock.now < deadline {
            held = try await database.pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT document FROM kiosk_checkpoint WHERE deviceId = ? ORDER BY sequence", arguments: [device.id])
            }
            if held.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(!held.isEmpty, "the hub holds no checkpoint of the kiosk")
        serve.terminate()
        #expect(await serve.exit() == 0)
        await running.stop()
        // What the hub holds, as GET /v1/fleet/kiosks/{id}/checkpoints gives it, checks the kiosk's log.
        let file = kiosk.folder.appendingPathComponent("hub-checkpoints.json")
        try Data(JSONValue.array(try held.map { try JSONValue.parse($0) }).jsonString().utf8).write(to: file)
        let verified = try await runStorybridgeToExit([
            "audit", "verify", "--checkpoints", file.path, "--data-dir", Self.kioskData(kiosk).path,
        ])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("\(held.count) of \(held.count) uploaded checkpoints match: ok"), "\(verified.output)")
    }

    @Test(
        "serve writes run/serve.json (0600) once it listens; a kiosk attaching with its token is told the start URL and shows in the beat; the file is gone after a graceful stop"
    )
    func kioskControl() async throws {
        let (hubLab, kiosk, device, _, tokenFile) = try enrolledKiosk("lobby-kiosk")
        let (hub, running) = try await startHub(hubLab)
        let serve = try await startServe(
            kiosk, ["--fleet", "http://127.0.0.1:\(running.port)", "--fleet-token-file", tokenFile, "--fleet-interval", "1s"])
        defer { serve.kill() }
        let directory = DataDirectory(Self.kioskData(kiosk))
        let runFile = try #require(KioskRunFile.read(in: directory))
        #expect(runFile.pid == serve.processIdentifier && runFile.url.hasPrefix("http://127.0.0.1:"))
        let mode = try FileManager.default.attributesOfItem(atPath: KioskRunFile.file(in: directory).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders = [.authorization: "Bearer \(runFile.controlToken)"]
        var logger = Logger(label: "test.kiosk")
        logger.logLevel = .critical
        let attach = KioskControlMessage.attach(.init(pid: 77, mode: "headless", browser: "/usr/bin/chromium"))
        let status = KioskControlMessage.status(.init(browserRestarts: 2, idleResets: 1, lastInputSecondsAgo: 30))
        let url = runFile.url.replacingOccurrences(of: "http://", with: "ws://") + "/__storybridge/kiosk"
        let registry = hub.registry
        let deviceId = device.id
        let seen = try await WebSocketClient.connect(url: .init(url), configuration: configuration, logger: logger) {
            inbound, outbound, _ -> Void in
            try await outbound.write(.text(String(decoding: attach.encoded(), as: UTF8.self)))
            try await outbound.write(.text(String(decoding: status.encoded(), as: UTF8.self)))
            var iterator = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
            guard case .text(let text) = try await iterator.next() else {
                Issue.record("the control socket sent no start message")
                return
            }
            #expect(try KioskControlMessage.decode(Data(text.utf8)) == .start(url: runFile.url + "/"))
            // While attached, the beats carry the kiosk's section.
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                if let section = await registry.kiosk(deviceId)?.lastBeat?.kiosk {
                    #expect(
                        section
                            == Beat.KioskStatus(
                                attached: true, mode: "headless", browserRestarts: 2, idleResets: 1, lastInputSecondsAgo: 30))
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("no beat carried the kiosk's section")
        }
        _ = seen
        serve.terminate()
        #expect(await serve.exit() == 0)
        #expect(KioskRunFile.read(in: directory) == nil, "the run file outlived a graceful stop")
        await running.stop()
    }

    @Test("the hub killed for a while: the first beat after it returns says how long it was unreachable")
    func unreachable() async throws {
        let hubLab = try ContentLab()
        let kiosk = try ContentLab()
        let store = DeviceStore(database: try HubDatabase(directory: hubLab.directory))
        let (device, token) = try store.add(name: "lobby-1")
        let credentials = ["--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret, "--fleet"]
        let hub = try await ContentServerProcess.start(hubLab, credentials)
        let port = try #require(URL(string: hub.baseURL)?.port)
        let serve = try await startServe(
            kiosk, ["--fleet", "http://127.0.0.1:\(port)", "--fleet-interval", "1s"],
            environment: ProcessInfo.processInfo.environment.merging(["STORYBRIDGE_FLEET_TOKEN": token.text]) { $1 })
        defer { serve.kill() }
        #expect(try await storedBeat(hubLab, device.id) { _ in true } != nil)
        let killedAt = Date()
        hub.process.kill()
        _ = await hub.process.exit()
        try await Task.sleep(for: .seconds(6))
        let restartedAt = Date()
        let again = try await ContentServerProcess.start(hubLab, credentials + ["--port", "\(port)"])
        defer { again.process.terminate() }
        // The agent tries again on its back-off (1, 2, 4 ... 60 s, jittered up to 1.2x), which kept
        // counting through the outage: on a loaded machine the hub's restart can land early in a
        // long step, so the first beat after it may come a whole step later. Waited for: the
        // longest step with its jitter, then time for the beat to be stored.
        let reconnected = Duration.seconds(Double(Backoff.steps.max() ?? 60) * 1.2) + .seconds(20)
        let back = try #require(try await firstBeatInHistory(hubLab, device.id, within: reconnected) { $0.hubUnreachable != nil })
        let outage = try #require(back.hubUnreachable)
        // The outage began at the kiosk's first failed attempt: after the kill, before the hub was
        // started again (however long the kill, the wait or the restart took on a loaded
        // machine); its seconds run from then to the beat that carried it. One second of slack
        // for the wire's times and the rounding.
        #expect(
            outage.since >= killedAt.addingTimeInterval(-1) && outage.since <= restartedAt.addingTimeInterval(1),
            "since \(outage.since), killed at \(killedAt), restarted at \(restartedAt)")
        let counted = back.sentAt.timeIntervalSince(outage.since)
        #expect(abs(Double(outage.seconds) - counted) <= 1, "hubUnreachable.seconds \(outage.seconds), from since to the beat \(counted)")
        #expect(outage.attempts >= 2)
        // Acknowledged: the next beats carry it no more.
        #expect(try await storedBeat(hubLab, device.id) { $0.seq > back.seq && $0.hubUnreachable == nil } != nil)
        serve.terminate()
        _ = await serve.exit()
        #expect(await again.stop())
    }

    @Test("--fleet without a token is a usage error naming both ways to give it")
    func noToken() async throws {
        let kiosk = try ContentLab()
        let output = Pipe()
        let errors = Pipe()
        var environment = ProcessInfo.processInfo.environment
        environment["STORYBRIDGE_FLEET_TOKEN"] = nil
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: ["serve", "--port", "0", "--data-dir", kiosk.directory.root.path, "--fleet", "http://127.0.0.1:9"],
            environment: environment, output: .pipe(output), error: .pipe(errors))
        let (_, err) = await readUntilExit(process, output: output, errors: errors)
        #expect(process.terminationStatus == 64)
        let text = String(decoding: err, as: UTF8.self)
        #expect(text.contains("--fleet-token-file") && text.contains("STORYBRIDGE_FLEET_TOKEN"), "\(text)")
    }

    @Test("the config's audit.checkpointEvery below 2 is a usage error naming the key; the flag of the same name wins over it")
    func checkpointEveryChecked() async throws {
        let kiosk = try ContentLab()
        let config = kiosk.folder.appendingPathComponent("serve.json")
        try Data(JSONValue.object(["audit": ["checkpointEvery": 1]]).jsonString().utf8).write(to: config)
        let refused = try await runStorybridgeToExit([
            "serve", Self.demo.path, "--port", "0", "--data-dir", Self.kioskData(kiosk).path, "--no-watch", "--config", config.path,
        ])
        #expect(refused.status == 64)
        #expect(refused.output.contains("audit.checkpointEvery must be 2 or more (it is 1)"), "\(refused.output)")
        let flag = try await runStorybridgeToExit([
            "serve", Self.demo.path, "--port", "0", "--data-dir", Self.kioskData(kiosk).path, "--no-watch",
            "--audit-checkpoint-every", "1",
        ])
        #expect(flag.status == 64 && flag.output.contains("--audit-checkpoint-every must be 2 or more"), "\(flag.output)")
        // The flag wins: with a good one, serve starts despite the file (checked by its banner).
        let serve = try await startServe(kiosk, ["--config", config.path, "--audit-checkpoint-every", "5"])
        serve.terminate()
        #expect(await serve.exit() == 0)
    }

    @Test(
        "serve --fleet-advertise: the hello carries the URL and the hub lists it for Prometheus; a URL that is no target is a usage error")
    func advertise() async throws {
        let (hubLab, kiosk, device, _, tokenFile) = try enrolledKiosk("lobby-3")
        let (_, scraperToken) = try DeviceStore(database: try HubDatabase(directory: hubLab.directory)).add(name: "prom", kind: .scraper)
        let (hub, running) = try await startHub(hubLab)
        let advertised = "http://127.0.0.1:9180/__storybridge/metrics"
        let serve = try await startServe(
            kiosk,
            [
                "--fleet", "http://127.0.0.1:\(running.port)", "--fleet-token-file", tokenFile, "--fleet-interval", "1s",
                "--fleet-advertise", advertised,
            ])
        defer { serve.kill() }
        #expect(try await beat(hub.registry, device.id) != nil)
        #expect(await hub.registry.kiosk(device.id)?.hello?.metricsURL == advertised)
        let reply = try await ContentClient(baseURL: running.baseURL).get("/v1/fleet/prometheus-sd", token: scraperToken.text)
        let group = try #require(try reply.array().first, "\(reply.text)")
        #expect(group["targets"] as? [String] == ["127.0.0.1:9180"])
        #expect((group["labels"] as? [String: String])?["__metrics_path__"] == "/__storybridge/metrics")
        serve.terminate()
        _ = await serve.exit()
        await running.stop()

        for bad in ["ftp://10.0.0.1/metrics", "http://user:pw@10.0.0.1:9180/m", "http://10.0.0.1:9180/m?x=1", "metrics"] {
            let output = Pipe()
            let errors = Pipe()
            let process = try await LaunchedProcess.launch(
                try storybridgeExecutable(),
                arguments: [
                    "serve", "--port", "0", "--data-dir", kiosk.directory.root.path, "--fleet", "http://127.0.0.1:9",
                    "--fleet-token-file", tokenFile, "--fleet-advertise", bad,
                ],
                output: .pipe(output), error: .pipe(errors))
            let (_, err) = await readUntilExit(process, output: output, errors: errors)
            #expect(process.terminationStatus == 64, "\(bad)")
            #expect(String(decoding: err, as: UTF8.self).contains("--fleet-advertise \(bad)"), "\(String(decoding: err, as: UTF8.self))")
        }
    }

    @Test("a real serve stopped and started again: the hub posts Kiosk (Offline), then Kiosk (Online), to a receiver on loopback")
    func webhooks() async throws {
        let (hubLab, kiosk, device, _, tokenFile) = try enrolledKiosk("lobby-4")
        let receiver = try await WebhookReceiver.start()
        var configuration = hubLab.configuration()
        configuration.fleet = true
        configuration.webhooks = WebhookConfiguration(endpoints: [
            .init(
                url: URL(string: receiver.url)!, secret: Array("a webhook secret of 32 bytes....".utf8),
                events: [.kioskOffline, .kioskOnline])
        ])
        var logger = Logger(label: "test.fleet-hub")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: configuration, logger: logger)
        let hub = try #require(server.fleet)
        let running = try await server.start(waitingForPackages: false)
        // 5 s: the hub would judge the kiosk silent after 15 s without a beat, which no loaded
        // machine makes it wait (at 1 s, a 3 s stall under the full suite made a first Offline
        // for missed beats, before the stop's). A kiosk beats at once when it connects.
        let arguments = ["--fleet", "http://127.0.0.1:\(running.port)", "--fleet-token-file", tokenFile, "--fleet-interval", "5s"]
        let first = try await startServe(kiosk, arguments)
        #expect(try await beat(hub.registry, device.id) != nil)
        first.terminate()
        #expect(await first.exit() == 0)
        let offline = try await receiver.waitFor(1)
        #expect(offline.map(\.eventName) == ["Kiosk (Offline)"])
        #expect((try offline[0].object()["Data"] as? [String: Any])?["Reason"] as? String == "stopped")
        let second = try await startServe(kiosk, arguments)
        defer { second.kill() }
        let all = try await receiver.waitFor(2)
        #expect(all.map(\.eventName) == ["Kiosk (Offline)", "Kiosk (Online)"])
        let data = try all[1].object()["Data"] as? [String: Any]
        #expect(data?["Id"] as? String == device.id && data?["Name"] as? String == "lobby-4")
        #expect((data?["OfflineSeconds"] as? Int).map { $0 >= 0 } == true, "\(String(describing: data))")
        second.terminate()
        _ = await second.exit()
        await running.stop()
        await receiver.stop()
    }

    @Test(
        "a real serve whose scheduled sync fails and whose upload queue holds a record: the hub posts Kiosk (SyncFailed) and Kiosk (QueueOverLimit), once each"
    )
    func syncFailedAndQueueWebhooks() async throws {
        let (hubLab, kiosk, device, _, tokenFile) = try enrolledKiosk("lobby-5")
        let receiver = try await WebhookReceiver.start()
        var configuration = hubLab.configuration()
        configuration.fleet = true
        configuration.webhooks = WebhookConfiguration(
            endpoints: [
                .init(
                    url: URL(string: receiver.url)!, secret: Array("a webhook secret of 32 bytes....".utf8),
                    events: [.kioskSyncFailed, .kioskQueueOverLimit])
            ], queueAlert: .init(records: 1))
        var logger = Logger(label: "test.fleet-hub")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: configuration, logger: logger)
        let running = try await server.start(waitingForPackages: false)
        // The kiosk serves its library (one deck installed from a real zip); it never logged in,
        // so every scheduled sync fails; no collector is configured, so the audit checkpoint
        // its start makes (every 2 entries) stays queued for upload.
        let zip = kiosk.folder.appendingPathComponent("deck.zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: ContentLab.slide(title: "kiosk deck"))
        try writer.close()
        let installed = try await runStorybridgeToExit(["install", zip.path, "--data-dir", Self.kioskData(kiosk).path])
        #expect(installed.status == 0, "\(installed.output)")
        let output = Pipe()
        let serve = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: [
                "serve", "--port", "0", "--data-dir", Self.kioskData(kiosk).path, "--no-watch", "--sync-every", "1s",
                "--audit-checkpoint-every", "2", "--fleet", "http://127.0.0.1:\(running.port)", "--fleet-token-file", tokenFile,
                "--fleet-interval", "1s",
            ],
            output: .pipe(output), error: .discard)
        defer { serve.kill() }
        let banner = await readUntil("Ctrl-C", from: output)
        #expect(banner.contains("Ctrl-C"), "\(banner)")
        let posted = try await receiver.waitFor(2)
        #expect(Set(posted.map(\.eventName)) == ["Kiosk (SyncFailed)", "Kiosk (QueueOverLimit)"], "\(posted.map(\.eventName))")
        for event in posted {
            let data = try event.object()["Data"] as? [String: Any]
            #expect(data?["Id"] as? String == device.id && data?["Name"] as? String == "lobby-5", "\(String(describing: data))")
        }
        // Beats go on failing and queueing: neither event is posted again.
        try await Task.sleep(for: .seconds(3))
        #expect(receiver.received.count == 2, "\(receiver.received.map(\.eventName))")
        serve.terminate()
        _ = await serve.exit()
        await running.stop()
        await receiver.stop()
    }
}
