import Foundation
import Synchronization

/// How many failed logins the token endpoint allows per user name and per client address, and
/// over how long (``ContentServerConfiguration/loginLimits``).
package struct LoginLimits: Sendable, Hashable {
    /// Failures allowed per user name within the window (5 by default).
    package var perUser: Int
    /// Failures allowed per client address within the window (20 by default).
    package var perAddress: Int
    /// The window, in seconds (300 by default).
    package var window: TimeInterval

    package init(perUser: Int = 5, perAddress: Int = 20, window: TimeInterval = 300) {
        self.perUser = perUser
        self.perAddress = perAddress
        self.window = window
    }
}

/// Limits failed logins at the token endpoint, per user name and per client address: once a key
/// has ``LoginLimits/perUser`` (or ``LoginLimits/perAddress``) failures within ``LoginLimits/window`` seconds,
/// token requests for it are refused with 429 and `Retry-After` until the oldest of those failures
/// leaves the window, without the credentials being checked. A success clears the user's count.
///
/// Failures are wrong client secrets (`invalid_client`) and wrong passwords or refresh tokens
/// (`invalid_grant`). Counts are kept in memory; a restart clears them.
final class LoginThrottle: Sendable {
    /// What a failure is counted against.
    enum Key: Hashable, Sendable {
        case user(String)
        case address(String)
    }

    let limits: LoginLimits
    /// The times of recent failures, oldest first, per key.
    private let failures = Mutex<[Key: [TimeInterval]]>([:])

    init(limits: LoginLimits) {
        self.limits = limits
    }

    /// The keys of a token request: its address, and its user name for the password grant.
    static func keys(address: String?, form: [String: String]) -> [Key] {
        var keys: [Key] = []
        if let address { keys.append(.address(address)) }
        if form["grant_type"] == "password", let username = form["username"], !username.isEmpty {
            keys.append(.user(username.lowercased()))
        }
        return keys
    }

    /// Refuses the request when one of its keys has used up its failures; the seconds to wait.
    func check(_ keys: [Key], now: Date) throws(TokenEndpointError) {
        let seconds = now.timeIntervalSince1970
        let wait: TimeInterval? = failures.withLock { failures in
            keys.compactMap { key -> TimeInterval? in
                let recent = (failures[key] ?? []).filter { $0 > seconds - limits.window }
                guard recent.count >= limit(of: key), let oldest = recent.first else { return nil }
                return oldest + limits.window - seconds
            }.max()
        }
        if let wait {
            throw .tooManyAttempts(retryAfter: max(1, Int(wait.rounded(.up))))
        }
    }

    /// Counts a failed login against every key.
    func failed(_ keys: [Key], now: Date) {
        let seconds = now.timeIntervalSince1970
        failures.withLock { failures in
            for key in keys {
                failures[key] = (failures[key] ?? []).filter { $0 > seconds - limits.window } + [seconds]
            }
            // Keys whose failures all left the window are forgotten, so memory follows the attack
            // rate rather than its history.
            if failures.count > 1000 {
                failures = failures.filter { $0.value.last.map { $0 > seconds - limits.window } ?? false }
            }
        }
    }

    /// Clears the user's failures after a successful login.
    func succeeded(_ keys: [Key]) {
        failures.withLock { failures in
            for key in keys {
                if case .user = key { failures[key] = nil }
            }
        }
    }

    private func limit(of key: Key) -> Int {
        switch key {
        case .user: return limits.perUser
        case .address: return limits.perAddress
        }
    }
}
