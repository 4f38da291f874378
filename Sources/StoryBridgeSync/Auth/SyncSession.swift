import Foundation

/// A logged-in session as stored in the data folder: where the service is, how to renew the
/// access token, and who is logged in. The user's password is never part of it; the client
/// secret is, because renewing a token needs it (the file is readable by its owner only).
package struct SyncSession: Codable, Sendable, Hashable {
    /// How the session was opened.
    package enum Kind: String, Codable, Sendable {
        /// `client_credentials`: renewed by asking again with the same client id and secret.
        case service
        /// `password`: renewed with the refresh token.
        case user
    }

    package var authURL: URL
    package var apiURL: URL
    package var kind: Kind
    package var clientId: String
    package var clientSecret: String
    package var username: String?
    package var accessToken: String
    package var refreshToken: String?
    package var expiresAt: Date
    /// When the access token was received (nil in sessions stored before this was kept).
    package var issuedAt: Date?
    package var subject: String?
    var fullName: String?

    /// A session from a token reply received at `now`.
    package init(
        authURL: URL, apiURL: URL, kind: Kind, clientId: String, clientSecret: String, username: String?, reply: TokenReply,
        now: Date = Date()
    ) {
        self.authURL = authURL
        self.apiURL = apiURL
        self.kind = kind
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.username = username
        accessToken = reply.accessToken
        refreshToken = reply.refreshToken
        let claims = AccessTokenClaims(jwt: reply.accessToken)
        expiresAt = reply.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) } ?? claims.expires ?? now.addingTimeInterval(3600)
        issuedAt = now
        subject = claims.subject
        fullName = claims.fullName
    }

    /// This session after a renewal: a refresh reply may or may not carry a new refresh token.
    func renewed(with reply: TokenReply, now: Date) -> SyncSession {
        var next = SyncSession(
            authURL: authURL, apiURL: apiURL, kind: kind, clientId: clientId, clientSecret: clientSecret, username: username,
            reply: reply, now: now)
        if next.refreshToken == nil { next.refreshToken = refreshToken }
        if next.subject == nil { next.subject = subject }
        if next.fullName == nil { next.fullName = fullName }
        return next
    }

    /// How long before expiry the token is renewed ahead of need: `preferred`, but at most a
    /// quarter of the token's lifetime, so a short-lived token is used for most of its life instead
    /// of being renewed before every request.
    func renewalMargin(preferred: TimeInterval) -> TimeInterval {
        guard let issuedAt else { return preferred }
        return min(preferred, max(0, expiresAt.timeIntervalSince(issuedAt)) / 4)
    }

    /// The grant that renews this session.
    var renewalGrant: TokenGrant? {
        switch kind {
        case .service: return .clientCredentials(clientId: clientId, clientSecret: clientSecret)
        case .user: return refreshToken.map { .refreshToken(clientId: clientId, clientSecret: clientSecret, refreshToken: $0) }
        }
    }

    /// Who is logged in, for messages.
    package var who: String {
        switch kind {
        case .service: return "service client \(clientId)"
        case .user: return "\(fullName ?? username ?? subject ?? "user") (\(username ?? subject ?? clientId))"
        }
    }
}
