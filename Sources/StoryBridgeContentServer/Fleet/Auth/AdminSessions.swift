import Crypto
import Foundation
import GRDB
import StoryBridge
import StoryBridgeFleet

/// The fleet admins' sessions (docs/design/FLEET.md §5.4), kept in `admin_session` of the hub
/// database so that they survive a restart.
///
/// A session is 32 random bytes, the `sb_fleet` cookie's value as base64url; the table holds only
/// its SHA-256. It carries a CSRF token of its own (32 random bytes) that every state-changing
/// request must send back. It ends after ``idleLimit`` without a request, ``absoluteLimit`` after
/// the login, at logout, or when its user is no longer an admin of the configuration, all on
/// the hub's injected clock.
final class AdminSessions: Sendable {
    /// One admin's session.
    struct Session: Sendable, Equatable {
        /// The admin.
        var username: String
        /// The token state-changing requests must carry (`X-CSRF-Token`, or the `csrf` form field).
        var csrf: String
        /// When the admin logged in.
        var createdAt: Date
        /// When the session was last used.
        var lastSeenAt: Date
    }

    /// The session cookie's name.
    static let cookieName = "sb_fleet"
    /// How long a session lasts without a request: 2 hours.
    static let idleLimit: TimeInterval = 2 * 3600
    /// How long a session lasts at most: 12 hours after the login.
    static let absoluteLimit: TimeInterval = 12 * 3600

    private let database: HubDatabase
    private let accounts: ContentServerAccounts
    private let clock: any HostClock

    /// Sessions in `database` for the admins of `accounts`, on `clock`.
    init(database: HubDatabase, accounts: ContentServerAccounts, clock: any HostClock) {
        self.database = database
        self.accounts = accounts
        self.clock = clock
    }

    /// A new session of `username`: the cookie's value (shown to nobody else) and the session.
    /// Expired sessions are deleted on the way.
    func start(username: String) async throws -> (cookie: String, session: Session) {
        let cookie = Self.randomToken()
        let now = clock.now
        let session = Session(username: username, csrf: Self.randomToken(), createdAt: now, lastSeenAt: now)
        try await database.pool.write { db in
            try db.execute(
                sql: "DELETE FROM admin_session WHERE lastSeenAt < ? OR createdAt < ?",
                arguments: [now.addingTimeInterval(-Self.idleLimit), now.addingTimeInterval(-Self.absoluteLimit)])
            try db.execute(
                sql: "INSERT INTO admin_session (idHash, username, csrf, createdAt, lastSeenAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [Self.hash(cookie), username, session.csrf, now, now])
        }
        return (cookie, session)
    }

    /// The live session of `cookie`, its last use moved to now (unless `touch` is false: the
    /// dashboard's stream looks without using it); nil (and the row deleted) when it is unknown,
    /// expired, or its user is no longer an admin.
    func session(cookie: String, touch: Bool = true) async throws -> Session? {
        guard !cookie.isEmpty, cookie.utf8.count <= 64 else { return nil }
        let idHash = Self.hash(cookie)
        let now = clock.now
        let accounts = accounts
        return try await database.pool.write { db -> Session? in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT username, csrf, createdAt, lastSeenAt FROM admin_session WHERE idHash = ?", arguments: [idHash])
            else { return nil }
            var session = Session(username: row["username"], csrf: row["csrf"], createdAt: row["createdAt"], lastSeenAt: row["lastSeenAt"])
            let expired =
                now.timeIntervalSince(session.lastSeenAt) >= Self.idleLimit
                || now.timeIntervalSince(session.createdAt) >= Self.absoluteLimit
            let admin = accounts.users.contains { $0.username == session.username && $0.isAdmin }
            guard !expired, admin else {
                try db.execute(sql: "DELETE FROM admin_session WHERE idHash = ?", arguments: [idHash])
                return nil
            }
            guard touch else { return session }
            session.lastSeenAt = now
            try db.execute(sql: "UPDATE admin_session SET lastSeenAt = ? WHERE idHash = ?", arguments: [now, idHash])
            return session
        }
    }

    /// Ends the session of `cookie` (logout).
    func end(cookie: String) async throws {
        let idHash = Self.hash(cookie)
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM admin_session WHERE idHash = ?", arguments: [idHash])
        }
    }

    /// 32 random bytes as base64url without padding (43 characters).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    private static func hash(_ cookie: String) -> Data {
        Data(SHA256.hash(data: Data(cookie.utf8)))
    }
}
