import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeFleet

/// Each kiosk's current state on the hub, in memory, with its presence machine
/// (docs/design/FLEET.md §5.3): beats, `bye`s and the ticker's evaluations go in; beats and
/// transitions go to the ``HistoryWriter``, which writes them to `beat`, `kiosk_state`,
/// `state_change`, `minute` and `sync_run` once a second.
///
/// It also closes the sockets of revoked devices: ``checkRevocations()`` reads `PRAGMA
/// data_version` of the hub database (which changes when another connection, such as
/// `content-server device revoke`, commits) and, when it changed, the ids of revoked devices.
package actor FleetRegistry {
    /// What the hub knows of one kiosk.
    package struct Kiosk: Sendable {
        /// The device id.
        package var deviceId: String
        /// The presence machine.
        package var machine: KioskPresenceMachine
        /// The hello of its current (or last) connection.
        package var hello: KioskHello?
        /// Its last beat.
        package var lastBeat: Beat?
        /// When the last beat arrived (hub's wall clock).
        package var lastBeatAt: Date?
        /// When the hub stored the kiosk's last screenshot (`kiosk_state.lastScreenshotAt`).
        package var lastScreenshotAt: Date? = nil
    }

    private let store: DeviceStore
    /// Where beats and transitions are written.
    package let history: HistoryWriter
    private let clock: any HostClock
    private let logger: Logger
    private var kiosks: [String: Kiosk] = [:]
    private var connections: [String: KioskConnection] = [:]
    private var dataVersion: Int?
    /// Where kiosk events go (webhooks), if anywhere.
    private let alerts: KioskWebhooks?
    /// Which transitions and beats raise kiosk events.
    private var alertRules: KioskAlertRules
    /// The checkpoint document last looked at per device: a beat repeats the host's newest
    /// checkpoint until it makes another, and each is checked once. (Not the newest sequence: a
    /// refused document must not hide the genuine one of its number.)
    private var checkpointsSeen: [String: JSONValue] = [:]
    /// Per kiosk, a number that grows whenever what the dashboard shows of it may have changed
    /// (hello, beat, transition, forgotten): a stream re-renders only kiosks whose number moved.
    private var revisions: [String: Int] = [:]
    private var lastRevision = 0
    /// No kiosk's presence deadline comes before this (``evaluate(now:)`` looks at none until
    /// then); `nil`: none runs.
    private var earliestDeadline: ContinuousClock.Instant?
    /// Grows whenever device rows may have changed (another process committed to the hub
    /// database, as `device add`/`revoke` do, or a hello bound a host id).
    private var devicesGeneration = 0

    /// A registry over `store`, timing on `clock`, with every kiosk device not revoked loaded from
    /// `kiosk_state`: the deadlines of kiosks saved `online` or `late` count from now (the hub's
    /// start), so kiosks that reconnect within two intervals cause no transition.
    /// The last beat and hello are restored too, so that `/v1/fleet` shows a kiosk's decks before
    /// it has beaten again. Beats and transitions go to `history` (by default a writer of its own
    /// over the store's database, which nobody runs: tests that only evaluate presence); kiosk
    /// events (offline, online, sync failed, queue over `queueAlert`) to `alerts`, when given.
    package init(
        store: DeviceStore, clock: any HostClock, logger: Logger, history: HistoryWriter? = nil, alerts: KioskWebhooks? = nil,
        queueAlert: WebhookConfiguration.QueueAlert = WebhookConfiguration.QueueAlert()
    ) throws {
        self.store = store
        self.alerts = alerts
        self.alertRules = KioskAlertRules(limits: queueAlert)
        self.clock = clock
        self.logger = logger
        self.history = history ?? HistoryWriter(database: store.database, clock: clock, logger: logger)
        let start = clock.instant
        let rows = try store.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.deviceId, s.presence, s.since, s.intervalSeconds, s.lastBeatAt, s.hello, s.lastBeat, s.lastScreenshotAt
                    FROM kiosk_state s JOIN device d ON d.id = s.deviceId
                    WHERE d.revokedAt IS NULL AND d.kind = 'kiosk'
                    """)
        }
        var kiosks: [String: Kiosk] = [:]
        for row in rows {
            let presence = KioskPresence(rawValue: row["presence"]) ?? .new
            let interval = Duration.seconds((row["intervalSeconds"] as Int?) ?? 30)
            let deviceId: String = row["deviceId"]
            kiosks[deviceId] = Kiosk(
                deviceId: deviceId,
                machine: KioskPresenceMachine(restoring: presence, since: row["since"], interval: interval, hubStart: start),
                hello: Self.decode(row["hello"]).flatMap { if case .hello(let hello) = $0 { hello } else { nil } },
                lastBeat: Self.decode(row["lastBeat"]).flatMap { if case .beat(let beat) = $0 { beat } else { nil } },
                lastBeatAt: row["lastBeatAt"], lastScreenshotAt: row["lastScreenshotAt"])
        }
        self.kiosks = kiosks
        earliestDeadline = kiosks.values.compactMap(\.machine.nextDeadline).min()
    }

    /// Keeps ``earliestDeadline`` no later than `kiosk`'s next deadline.
    private func noteDeadline(of kiosk: Kiosk) {
        guard let deadline = kiosk.machine.nextDeadline else { return }
        earliestDeadline = min(earliestDeadline ?? deadline, deadline)
    }

    /// The kiosk `deviceId`, if known.
    package func kiosk(_ deviceId: String) -> Kiosk? { kiosks[deviceId] }

    /// What the dashboard's streams look at every 250 ms, in one call: the devices' generation,
    /// every kiosk known and each one's revision (0 for one not changed since the hub started).
    package func changes() -> (devicesGeneration: Int, kiosks: [String: Kiosk], revisions: [String: Int]) {
        (devicesGeneration, kiosks, revisions)
    }

    /// Notes that what is known of `deviceId` changed.
    private func touch(_ deviceId: String) {
        lastRevision += 1
        revisions[deviceId] = lastRevision
    }

    /// Every kiosk known.
    package func all() -> [Kiosk] { kiosks.values.sorted { $0.deviceId < $1.deviceId } }

    /// How many sockets are open.
    package var connectionCount: Int { connections.count }

    /// The open socket of `deviceId`, if it is connected.
    func connection(_ deviceId: String) -> KioskConnection? { connections[deviceId] }

    /// A kiosk's hello was accepted on `connection`: it becomes the device's connection, and an
    /// older one is closed (4409).
    package func connected(_ connection: KioskConnection, hello: KioskHello) async {
        let older = connections.updateValue(connection, forKey: connection.deviceId)
        var kiosk =
            kiosks[connection.deviceId]
            ?? Kiosk(
                deviceId: connection.deviceId, machine: KioskPresenceMachine(since: clock.now), hello: nil, lastBeat: nil,
                lastBeatAt: nil)
        kiosk.hello = hello
        kiosks[connection.deviceId] = kiosk
        touch(connection.deviceId)
        // The hello bound the device's host id (`DeviceStore.bind`) just before.
        devicesGeneration += 1
        let helloText = (try? FleetWire.encode(.hello(hello))).map { String(decoding: $0, as: UTF8.self) }
        await persist(connection.deviceId) { db in
            try db.execute(
                sql: "UPDATE kiosk_state SET hello = ?, intervalSeconds = ? WHERE deviceId = ?",
                arguments: [helloText, hello.intervalSeconds, connection.deviceId])
        }
        if let older, older.id != connection.id {
            await older.close(code: FleetWire.CloseCode.replaced, reason: "replaced by a newer connection")
        }
    }

    /// `connection` ended; a newer connection of the device is left alone. Presence does not
    /// change (a reconnect within an interval must not flap).
    func disconnected(_ connection: KioskConnection) {
        if connections[connection.deviceId]?.id == connection.id { connections[connection.deviceId] = nil }
    }

    /// A beat from the device of `connection`, whose frame was `json` (stored as it came: it was
    /// just read as a beat within the frame limit, and encoding it again cost the hub more than
    /// anything else it does with a beat).
    package func beat(_ beat: Beat, json: Data, from connection: KioskConnection) async {
        guard connections[connection.deviceId]?.id == connection.id, var kiosk = kiosks[connection.deviceId] else { return }
        let now = clock.now
        let interval = kiosk.hello.map { Duration.seconds(max(1, $0.intervalSeconds)) }
        let previousSince = kiosk.machine.since
        let previousBeat = kiosk.lastBeat
        let transition = kiosk.machine.beat(at: clock.instant, date: now, interval: interval)
        kiosk.lastBeat = beat
        kiosk.lastBeatAt = now
        kiosks[connection.deviceId] = kiosk
        noteDeadline(of: kiosk)
        touch(connection.deviceId)
        if let transition {
            record(transition, connection.deviceId)
            raiseAlert(transition, kiosk, offlineSince: previousSince, beat: beat)
        }
        if alerts != nil {
            for event in alertRules.events(for: beat, previous: previousBeat, deviceId: connection.deviceId) {
                send(event, kiosk, at: now, reason: "beat", beat: beat)
            }
        }
        history.record(beat: beat, json: json, deviceId: connection.deviceId, receivedAt: now)
        if let checkpoint = beat.checkpoint { take(checkpoint, kiosk, at: now) }
    }

    /// Keeps the checkpoint `document` of `kiosk`'s beat, unless it is the one the previous beat
    /// carried, when it is signed by the kiosk's own host key; logs why not otherwise. (The
    /// ``HistoryWriter`` keeps one document per host and sequence, and reports another.)
    private func take(_ document: JSONValue, _ kiosk: Kiosk, at now: Date) {
        guard checkpointsSeen[kiosk.deviceId] != document else { return }
        checkpointsSeen[kiosk.deviceId] = document
        switch KioskCheckpoint.checked(document, deviceId: kiosk.deviceId, hostId: kiosk.hello?.hostId, at: now) {
        case .success(let checkpoint):
            history.record(checkpoint: checkpoint)
        case .failure(let refusal):
            logger.warning(
                "fleet: a checkpoint in a beat of kiosk \(kiosk.deviceId) is not kept: \(refusal)",
                metadata: ["device": "\(kiosk.deviceId)"])
        }
    }

    /// A screenshot of `deviceId` was stored at `at` (``FleetScreenshotRoutes`` wrote it and
    /// `kiosk_state.lastScreenshotAt`): `/v1/fleet` and the dashboard show it from here, without
    /// reading the database.
    func screenshotStored(_ deviceId: String, at: Date) {
        guard kiosks[deviceId] != nil else { return }
        kiosks[deviceId]?.lastScreenshotAt = at
        touch(deviceId)
    }

    /// The device of `connection` said `bye`: offline at once.
    package func bye(from connection: KioskConnection) async {
        guard var kiosk = kiosks[connection.deviceId] else { return }
        let transition = kiosk.machine.bye(date: clock.now)
        kiosks[connection.deviceId] = kiosk
        touch(connection.deviceId)
        if let transition {
            record(transition, connection.deviceId)
            raiseAlert(transition, kiosk)
        }
    }

    /// Applies the deadlines at `now` (the ticker calls it every 250 ms); returns the transitions.
    @discardableResult
    package func evaluate(now: ContinuousClock.Instant) async -> [KioskPresenceMachine.Transition] {
        let date = clock.now.addingTimeInterval(-Self.seconds(now.duration(to: clock.instant)))
        var transitions: [(String, KioskPresenceMachine.Transition)] = []
        // Most ticks come before any deadline: nothing to look at. (A beat only moves its kiosk's
        // deadline later, so ``earliestDeadline`` may be early, never late; it is worked out
        // again below.)
        guard let earliest = earliestDeadline, earliest <= now else { return [] }
        var due: [String] = []
        var next: ContinuousClock.Instant?
        for (deviceId, kiosk) in kiosks {
            guard let deadline = kiosk.machine.nextDeadline else { continue }
            if deadline <= now { due.append(deviceId) } else { next = min(next ?? deadline, deadline) }
        }
        // Changed apart from the look: writing into the dictionary while iterating it copies it.
        for deviceId in due {
            if let transition = kiosks[deviceId]?.machine.evaluate(now: now, date: date) {
                touch(deviceId)
                transitions.append((deviceId, transition))
            }
            if let deadline = kiosks[deviceId]?.machine.nextDeadline { next = min(next ?? deadline, deadline) }
        }
        earliestDeadline = next
        for (deviceId, transition) in transitions.sorted(by: { $0.0 < $1.0 }) {
            record(transition, deviceId)
            if let kiosk = kiosks[deviceId] { raiseAlert(transition, kiosk) }
        }
        return transitions.map(\.1)
    }

    /// When the hub database changed since the last look, closes the sockets of revoked devices
    /// (4401) and forgets them. Returns the ids closed.
    @discardableResult
    func checkRevocations() async -> [String] {
        do {
            let version = try await store.database.pool.writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            }
            guard version != dataVersion else { return [] }
            dataVersion = version
            devicesGeneration += 1
            let revoked = try await store.revokedIds()
            var closed: [String] = []
            for deviceId in revoked where kiosks[deviceId] != nil || connections[deviceId] != nil {
                kiosks[deviceId] = nil
                touch(deviceId)
                if let connection = connections.removeValue(forKey: deviceId) {
                    await connection.close(code: FleetWire.CloseCode.revoked, reason: "device revoked")
                    closed.append(deviceId)
                }
                logger.notice("fleet: device revoked", metadata: ["device": "\(deviceId)"])
            }
            return closed
        } catch is CancellationError {
            // The hub is stopping (the ticker's task was cancelled during the read): nothing is wrong.
            return []
        } catch {
            logger.error("fleet: cannot read the hub database for revocations", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Adds a device added while the hub runs (first seen on connect).
    package func known(_ device: Device) {
        guard kiosks[device.id] == nil else { return }
        kiosks[device.id] = Kiosk(
            deviceId: device.id, machine: KioskPresenceMachine(since: device.createdAt), hello: nil, lastBeat: nil, lastBeatAt: nil)
        touch(device.id)
    }

    /// Writes the hello of `deviceId` at once (a connection is rare; the dashboard shows it).
    private func persist(_ deviceId: String, _ body: @escaping @Sendable (Database) throws -> Void) async {
        do {
            try await store.database.pool.write { db in try body(db) }
        } catch {
            logger.error("fleet: cannot write the hub database", metadata: ["device": "\(deviceId)", "error": "\(error)"])
        }
    }

    /// Hands `transition` to the history writer and logs it.
    private func record(_ transition: KioskPresenceMachine.Transition, _ deviceId: String) {
        history.record(transition, deviceId: deviceId)
        logger.info(
            "fleet: kiosk \(transition.from.rawValue) → \(transition.to.rawValue)",
            metadata: ["device": "\(deviceId)", "reason": "\(transition.reason)"])
    }

    /// Sends the event `transition` of `kiosk` raises, if any (`offlineSince`: when an `online`
    /// kiosk had gone offline; `beat`: the beat that brought it back).
    private func raiseAlert(
        _ transition: KioskPresenceMachine.Transition, _ kiosk: Kiosk, offlineSince: Date? = nil, beat: Beat? = nil
    ) {
        guard alerts != nil, let event = alertRules.event(for: transition) else { return }
        var alert = makeAlert(event, kiosk, at: transition.at, reason: transition.reason)
        if event == .kioskOnline {
            alert.offlineSeconds = offlineSince.map { Int(transition.at.timeIntervalSince($0).rounded()) }
            alert.hubUnreachableSeconds = beat?.hubUnreachable?.seconds
        }
        alerts?.send(alert)
    }

    private func send(_ event: WebhookEvent, _ kiosk: Kiosk, at: Date, reason: String, beat: Beat) {
        var alert = makeAlert(event, kiosk, at: at, reason: reason)
        alert.sync = event == .kioskSyncFailed ? beat.sync : nil
        alert.analytics = event == .kioskQueueOverLimit ? beat.analytics : nil
        alerts?.send(alert)
    }

    private func makeAlert(_ event: WebhookEvent, _ kiosk: Kiosk, at: Date, reason: String) -> KioskAlert {
        KioskAlert(
            event: event, at: at, deviceId: kiosk.deviceId, hostId: kiosk.hello?.hostId,
            labels: kiosk.lastBeat?.labels ?? kiosk.hello?.labels ?? [:], since: kiosk.machine.since, lastBeatAt: kiosk.lastBeatAt,
            reason: reason)
    }

    /// A stored message (`kiosk_state.hello`, `lastBeat`), if it still decodes.
    private static func decode(_ text: String?) -> FleetMessage? {
        guard let text else { return nil }
        return try? FleetWire.decode(Data(text.utf8))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
