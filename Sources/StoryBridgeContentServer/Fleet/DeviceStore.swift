import Foundation
import GRDB
import StoryBridge

/// What kind of device a token is for.
package enum DeviceKind: String, Sendable, Codable, CaseIterable {
    /// A kiosk: `serve --fleet` connects with it.
    case kiosk
    /// Prometheus: it may read service discovery and metrics, never connect as a kiosk.
    case scraper
}

/// One device as `device list` shows it.
package struct Device: Sendable, Equatable, Codable {
    /// `d_` + 10 base32 characters.
    package var id: String
    /// Unique among devices not revoked.
    package var name: String
    /// Kiosk or scraper.
    package var kind: DeviceKind
    /// The hub-side labels (merged over the kiosk's own; the hub's win).
    package var labels: [String: String]
    /// The host id the device is bound to (by its first hello), or nil.
    package var hostId: String?
    /// When it was added.
    package var createdAt: Date
    /// When it was revoked, or nil.
    package var revokedAt: Date?
    /// `new`, `online`, `late`, `offline`, or `revoked`.
    package var state: String
    /// Since when it is in that state.
    package var since: Date
}

/// What a token presented to the hub is worth.
package enum DeviceVerdict: Sendable, Equatable {
    /// A known device not revoked, whose secret matches.
    case valid(Device)
    /// Not of the token form.
    case malformed
    /// No such device, or a wrong secret (the two are not told apart).
    case unknown
    /// The device was revoked.
    case revoked(Device)
}

/// The devices in the hub database and their token hashes (docs/design/FLEET.md §5.2).
package struct DeviceStore: Sendable {
    /// The database.
    package let database: HubDatabase

    /// A store over `database`.
    package init(database: HubDatabase) { self.database = database }

    /// The row of table `device`.
    struct Row: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "device"
        var id: String
        var name: String
        var kind: String
        var secretHash: Data
        var labels: String
        var hostId: String?
        var createdAt: Date
        var revokedAt: Date?
    }

    /// Adds a device named `name`; returns it and its token, which is not kept anywhere.
    package func add(
        name: String, labels: [String: String] = [:], kind: DeviceKind = .kiosk, now: Date = Date()
    ) throws(HubStoreError) -> (device: Device, token: DeviceToken) {
        try Self.check(name: name)
        try Self.check(labels: labels, what: "--label")
        let token = DeviceToken.generate()
        let row = Row(
            id: token.deviceId, name: name, kind: kind.rawValue, secretHash: token.secretHash, labels: Self.json(labels),
            hostId: nil, createdAt: now, revokedAt: nil)
        try write { db in
            if try Row.filter(Column("name") == name && Column("revokedAt") == nil).fetchCount(db) > 0 {
                throw HubStoreError.nameTaken(name)
            }
            try row.insert(db)
            try db.execute(
                sql: "INSERT INTO kiosk_state (deviceId, presence, since) VALUES (?, 'new', ?)", arguments: [row.id, now])
            try Self.bumpDevicesVersion(db)
        }
        return (Self.device(row, state: "new", since: now), token)
    }

    /// Every device, oldest first, with its presence (`revoked` for revoked ones).
    package func list() throws(HubStoreError) -> [Device] {
        try read { db in
            let rows = try Row.order(Column("createdAt"), Column("id")).fetchAll(db)
            var presence: [String: (String, Date)] = [:]
            for state in try GRDB.Row.fetchAll(db, sql: "SELECT deviceId, presence, since FROM kiosk_state") {
                presence[state["deviceId"]] = (state["presence"], state["since"])
            }
            return rows.map { row in
                if let revokedAt = row.revokedAt { return Self.device(row, state: "revoked", since: revokedAt) }
                let (state, since) = presence[row.id] ?? ("new", row.createdAt)
                return Self.device(row, state: state, since: since)
            }
        }
    }

    /// Revokes the device named `nameOrId` (a live name, or an id); returns it. Its token is
    /// refused from then on, and a hub closes its open connection within a second.
    package func revoke(_ nameOrId: String, now: Date = Date()) throws(HubStoreError) -> Device {
        try write { db in
            let live = try Row.filter(Column("name") == nameOrId && Column("revokedAt") == nil).fetchOne(db)
            guard var row = try live ?? Row.fetchOne(db, key: nameOrId) else { throw HubStoreError.unknownDevice(nameOrId) }
            guard row.revokedAt == nil else { throw HubStoreError.alreadyRevoked(nameOrId) }
            row.revokedAt = now
            try row.update(db)
            let from = try String.fetchOne(db, sql: "SELECT presence FROM kiosk_state WHERE deviceId = ?", arguments: [row.id]) ?? "new"
            try db.execute(
                sql: "INSERT INTO state_change (deviceId, at, \"from\", \"to\", reason) VALUES (?, ?, ?, 'revoked', 'revoked')",
                arguments: [row.id, now, from])
            try Self.bumpDevicesVersion(db)
            return Self.device(row, state: "revoked", since: now)
        }
    }

    /// What `text` (a token presented to the hub) is worth: one indexed read, no cache, so a
    /// revoke is seen by the next request.
    package func verify(token text: String) throws(HubStoreError) -> DeviceVerdict {
        guard let token = DeviceToken(text) else { return .malformed }
        return try read { db in try Self.verify(token, db) }
    }

    /// ``verify(token:)`` off the caller's thread, for a request path.
    func verifyAsync(token text: String) async throws(HubStoreError) -> DeviceVerdict {
        guard let token = DeviceToken(text) else { return .malformed }
        do {
            return try await database.pool.read { db in try Self.verify(token, db) }
        } catch {
            throw .storage("cannot read the hub database \(database.file.path): \(error)")
        }
    }

    static func verify(_ token: DeviceToken, _ db: Database) throws -> DeviceVerdict {
        guard let row = try Row.fetchOne(db, key: token.deviceId) else {
            // Hash anyway, so that an unknown id costs what a wrong secret costs.
            _ = token.matches(storedHash: Data(count: 32))
            return .unknown
        }
        guard token.matches(storedHash: row.secretHash) else { return .unknown }
        if let revokedAt = row.revokedAt { return .revoked(device(row, state: "revoked", since: revokedAt)) }
        return .valid(device(row, state: "", since: row.createdAt))
    }

    /// The ids of the revoked devices.
    package func revokedIds() async throws(HubStoreError) -> Set<String> {
        do {
            return try await database.pool.read { db in
                Set(try String.fetchAll(db, sql: "SELECT id FROM device WHERE revokedAt IS NOT NULL"))
            }
        } catch {
            throw .storage("cannot read the hub database \(database.file.path): \(error)")
        }
    }

    /// Binds `deviceId` to `hostId` when it has no host id yet; true when the device's host id is
    /// (now) `hostId`, false when it is bound to another.
    package func bind(deviceId: String, hostId: String) async throws(HubStoreError) -> Bool {
        do {
            return try await database.pool.write { db in
                try db.execute(sql: "UPDATE device SET hostId = ? WHERE id = ? AND hostId IS NULL", arguments: [hostId, deviceId])
                return try String.fetchOne(db, sql: "SELECT hostId FROM device WHERE id = ?", arguments: [deviceId]) == hostId
            }
        } catch {
            throw .storage("cannot write the hub database \(database.file.path): \(error)")
        }
    }

    // MARK: - Rules

    /// A name: 1 to 64 printable characters.
    package static func check(name: String) throws(HubStoreError) {
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }),
            name.trimmingCharacters(in: .whitespaces) == name
        else {
            throw .invalid("the device name \"\(name)\" must be 1 to 64 printable characters, without leading or trailing spaces")
        }
    }

    /// Labels: at most 16, keys `[a-z][a-z0-9_]{0,31}`, values at most 64 characters.
    package static func check(labels: [String: String], what: String) throws(HubStoreError) {
        guard labels.count <= 16 else { throw .invalid("\(what): at most 16 labels, not \(labels.count)") }
        for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
            let bytes = Array(key.utf8)
            let valid =
                (1...32).contains(bytes.count) && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0])
                && bytes.allSatisfy {
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                        || $0 == UInt8(ascii: "_")
                }
            guard valid else {
                throw .invalid("\(what): the label key \"\(key)\" must be a lower-case letter, then up to 31 of a-z, 0-9 and _")
            }
            guard value.count <= 64 else { throw .invalid("\(what): the value of \(key) is longer than 64 characters") }
        }
    }

    /// `KEY=VALUE` texts as labels.
    package static func parse(labels texts: [String], what: String) throws(HubStoreError) -> [String: String] {
        var labels: [String: String] = [:]
        for text in texts {
            guard let equals = text.firstIndex(of: "=") else { throw .invalid("\(what) \"\(text)\" is not KEY=VALUE") }
            let key = String(text[..<equals])
            guard labels[key] == nil else { throw .invalid("\(what): the label \(key) is given twice") }
            labels[key] = String(text[text.index(after: equals)...])
        }
        try check(labels: labels, what: what)
        return labels
    }

    // MARK: - Storage

    private func read<T>(_ body: (Database) throws -> T) throws(HubStoreError) -> T {
        do {
            return try database.pool.read(body)
        } catch let error as HubStoreError {
            throw error
        } catch {
            throw .storage("cannot read the hub database \(database.file.path): \(error)")
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(HubStoreError) -> T {
        do {
            return try database.pool.write(body)
        } catch let error as HubStoreError {
            throw error
        } catch {
            throw .storage("cannot write the hub database \(database.file.path): \(error)")
        }
    }

    private static func bumpDevicesVersion(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO hub_meta (key, value) VALUES ('devicesVersion', '1')
                ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                """)
    }

    private static func json(_ labels: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // A dictionary of strings always encodes.
        return String(decoding: try! encoder.encode(labels), as: UTF8.self)
    }

    private static func device(_ row: Row, state: String, since: Date) -> Device {
        let labels = (try? JSONDecoder().decode([String: String].self, from: Data(row.labels.utf8))) ?? [:]
        return Device(
            id: row.id, name: row.name, kind: DeviceKind(rawValue: row.kind) ?? .kiosk, labels: labels, hostId: row.hostId,
            createdAt: row.createdAt, revokedAt: row.revokedAt, state: state, since: since)
    }
}
