import Foundation
import StoryBridge

/// Hands out a valid access token: renews it shortly before it expires, and once more when the
/// API answers 401 to it. However many requests wait, one renewal is in flight; they all get
/// its result. Each renewal is written to the session file before it is used.
package actor AccessTokenProvider {
    private var session: SyncSession
    private let store: SessionStore?
    private let auth: AuthClient
    private let renewBefore: TimeInterval
    private let now: @Sendable () -> Date
    private var renewal: Task<SyncSession, any Error>?
    /// Renewals performed by this provider (for logs and tests).
    package private(set) var renewals = 0

    /// - Parameters:
    ///   - renewBefore: seconds before expiry at which the token is renewed ahead of need; a token
    ///     living less than four times that is renewed at three quarters of its life.
    package init(
        session: SyncSession, store: SessionStore?, auth: AuthClient, renewBefore: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.session = session
        self.store = store
        self.auth = auth
        self.renewBefore = renewBefore
        self.now = now
    }

    /// The current session (after any renewal).
    package var current: SyncSession { session }

    /// A token valid for at least its renewal margin, renewed first when needed.
    package func token() async throws(SyncError) -> String {
        if session.expiresAt.timeIntervalSince(now()) > session.renewalMargin(preferred: renewBefore) { return session.accessToken }
        return try await renew(replacing: session.accessToken)
    }

    /// Called after the API answered 401 to `rejected`: renews unless another request already
    /// did (then the newer token is returned at once).
    func tokenAfterRejection(of rejected: String) async throws(SyncError) -> String {
        if session.accessToken != rejected { return session.accessToken }
        return try await renew(replacing: rejected)
    }

    private func renew(replacing stale: String) async throws(SyncError) -> String {
        if let renewal {
            return try await Self.value(of: renewal).accessToken
        }
        guard let grant = session.renewalGrant else { throw .refreshRefused(oauthError: "no refresh token stored") }
        let previous = session
        let auth = self.auth
        let store = self.store
        let now = self.now
        let task = Task<SyncSession, any Error> {
            let reply = try await auth.requestToken(grant)
            let next = previous.renewed(with: reply, now: now())
            if let store { try await BlockingIO.run { () throws(SyncError) in try store.save(next) } }
            return next
        }
        renewal = task
        defer { renewal = nil }
        let next = try await Self.value(of: task)
        session = next
        renewals += 1
        return next.accessToken
    }

    private static func value(of task: Task<SyncSession, any Error>) async throws(SyncError) -> SyncSession {
        do {
            return try await task.value
        } catch let error as SyncError {
            // A service account asking again is told the same as a refused refresh: log in again.
            if case .wrongCredentials(let code) = error { throw .refreshRefused(oauthError: code) }
            throw error
        } catch {
            throw .storage("token renewal failed")
        }
    }
}
