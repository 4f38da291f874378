import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeFleet

/// Each kiosk's current state on the hub, in memory, with its presence machine
/// (docs/design/FLEET.md §5.3): beats, `bye`s and the ticker's evaluations go in; transitions are
/// written to `kiosk_state` and `state_change`.
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
    }

    private let store: DeviceStore
    private let clock: any HostClock
    private let logger: Logger
    private var kiosks: [String: Kiosk] = [:]
    private var connections: [String: KioskConnection] = [:]
    private var dataVersion: Int?

    /// A registry over `store`, timing on `clock`, with every kiosk device not revoked loaded from
    /// `kiosk_state`: the deadlines of kiosks saved `online` or `late` count from now (the hub's
    /// start), so kiosks that reconnect within two intervals cause no transition.
    package init(store: DeviceStore, clock: any HostClock, logger: Logger) throws {
        self.store = store
        self.clock = clock
        self.logger = logger
        let start = clock.instant
        let rows = try store.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.deviceId, s.presence, s.since, s.intervalSeconds, s.lastBeatAt
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
                hello: nil, lastBeat: nil, lastBeatAt: row["lastBeatAt"])
        }
        self.kiosks = kiosks
    }

    /// The kiosk `deviceId`, if known.
    package func kiosk(_ deviceId: String) -> Kiosk? { kiosks[deviceId] }

    /// Every kiosk known.
    package func all() -> [Kiosk] { kiosks.values.sorted { $0.deviceId < $1.deviceId } }

    /// How many sockets are open.
    package var connectionCount: Int { connections.count }

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
        let helloText = (try? FleetWire.encode(.hello(hello))).map { String(decoding: $0, as: UTF8.self) }
        await persist(connection.deviceId, transition: nil) { db in
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

    /// A beat from the device of `connection`.
    package func beat(_ beat: Beat, from connection: KioskConnection) async {
        guard connections[connection.deviceId]?.id == connection.id, var kiosk = kiosks[connection.deviceId] else { return }
        let now = clock.now
        let interval = kiosk.hello.map { Duration.seconds(max(1, $0.intervalSeconds)) }
        let transition = kiosk.machine.beat(at: clock.instant, date: now, interval: interval)
        kiosk.lastBeat = beat
        kiosk.lastBeatAt = now
        kiosks[connection.deviceId] = kiosk
        let beatText = (try? FleetWire.encode(.beat(beat))).map { String(decoding: $0, as: UTF8.self) }
        await persist(connection.deviceId, transition: transition) { db in
            try db.execute(
                sql: "UPDATE kiosk_state SET lastBeat = ?, lastBeatAt = ? WHERE deviceId = ?",
                arguments: [beatText, now, connection.deviceId])
        }
    }

    /// The device of `connection` said `bye`: offline at once.
    package func bye(from connection: KioskConnection) async {
        guard var kiosk = kiosks[connection.deviceId] else { return }
        let transition = kiosk.machine.bye(date: clock.now)
        kiosks[connection.deviceId] = kiosk
        await persist(connection.deviceId, transition: transition) { _ in }
    }

    /// Applies the deadlines at `now` (the ticker calls it every 250 ms); returns the transitions.
    @discardableResult
    package func evaluate(now: ContinuousClock.Instant) async -> [KioskPresenceMachine.Transition] {
        let date = clock.now.addingTimeInterval(-Self.seconds(now.duration(to: clock.instant)))
        var transitions: [(String, KioskPresenceMachine.Transition)] = []
        for (deviceId, var kiosk) in kiosks {
            if let transition = kiosk.machine.evaluate(now: now, date: date) {
                kiosks[deviceId] = kiosk
                transitions.append((deviceId, transition))
            }
        }
        for (deviceId, transition) in transitions.sorted(by: { $0.0 < $1.0 }) {
            await persist(deviceId, transition: transition) { _ in }
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
            let revoked = try await store.revokedIds()
            var closed: [String] = []
            for deviceId in revoked where kiosks[deviceId] != nil || connections[deviceId] != nil {
                kiosks[deviceId] = nil
                if let connection = connections.removeValue(forKey: deviceId) {
                    await connection.close(code: FleetWire.CloseCode.revoked, reason: "device revoked")
                    closed.append(deviceId)
                }
                logger.notice("fleet: device revoked", metadata: ["device": "\(deviceId)"])
            }
            return closed
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
    }

    private func persist(
        _ deviceId: String, transition: KioskPresenceMachine.Transition?, _ body: @escaping @Sendable (Database) throws -> Void
    ) async {
        do {
            try await store.database.pool.write { db in
                try body(db)
                if let transition {
                    try db.execute(
                        sql: "UPDATE kiosk_state SET presence = ?, since = ? WHERE deviceId = ?",
                        arguments: [transition.to.rawValue, transition.at, deviceId])
                    try db.execute(
                        sql: "INSERT INTO state_change (deviceId, at, \"from\", \"to\", reason) VALUES (?, ?, ?, ?, ?)",
                        arguments: [deviceId, transition.at, transition.from.rawValue, transition.to.rawValue, transition.reason])
                }
            }
        } catch {
            logger.error("fleet: cannot write the hub database", metadata: ["device": "\(deviceId)", "error": "\(error)"])
        }
        if let transition {
            logger.info(
                "fleet: kiosk \(transition.from.rawValue) → \(transition.to.rawValue)",
                metadata: ["device": "\(deviceId)", "reason": "\(transition.reason)"])
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
