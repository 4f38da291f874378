import Foundation
import Hummingbird
import Synchronization

/// The answer of a successful `POST /connect/token`.
public struct TokenReply: Sendable, Hashable, Codable {
    public var access_token: String
    public var expires_in: Int
    public var token_type: String
    public var refresh_token: String?
    public var scope: String?
}

/// Issues tokens for the three grants and checks access tokens.
///
/// Refresh tokens (password grant only) are signed JWTs valid for a year that rotate (see
/// ``RefreshTokenRotation``): a refresh answers a new access token and a new refresh token, and
/// the one presented is refused from then on (after a short grace for a concurrent use). A user
/// removed from the config can no longer refresh.
public final class TokenService: Sendable {
    let accounts: ContentServerAccounts
    let tokens: JSONWebToken
    let accessTokenLifetime: Int
    let refreshTokenLifetime: Int
    let rejectRefresh: Bool
    let rotation: RefreshTokenRotation
    private let issued = Atomic<Int>(0)

    static let accessScope = "api"
    static let refreshScope = "api offline_access"

    init(
        accounts: ContentServerAccounts, tokens: JSONWebToken, accessTokenLifetime: Int, refreshTokenLifetime: Int,
        rejectRefresh: Bool, rotation: RefreshTokenRotation
    ) {
        self.rotation = rotation
        self.accounts = accounts
        self.tokens = tokens
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.rejectRefresh = rejectRefresh
    }

    /// Answers a token request given its decoded form fields.
    public func grant(_ form: [String: String], now: Date = Date()) throws(TokenEndpointError) -> TokenReply {
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            throw .invalidRequest("grant_type is missing")
        }
        switch grantType {
        case "client_credentials":
            let service = try authenticate(form, among: accounts.services, grant: grantType)
            return reply(subject: service.clientId, fullname: service.clientId, clientId: service.clientId, refresh: nil, now: now)
        case "password":
            let app = try authenticate(form, among: accounts.apps, grant: grantType)
            let username = try required("username", in: form)
            let password = try required("password", in: form)
            guard let user = accounts.users.first(where: { $0.username == username }), user.password == password else {
                throw .invalidGrant("wrong user name or password")
            }
            let refresh = rotation.start(now: now, expiresAt: refreshExpiry(now)) { family, generation in
                refreshToken(user: user, clientId: app.clientId, family: family, generation: generation, now: now)
            }
            return reply(subject: user.username, fullname: user.fullname, clientId: app.clientId, refresh: refresh, now: now)
        case "refresh_token":
            let app = try authenticate(form, among: accounts.apps, grant: grantType)
            let presented = try required("refresh_token", in: form)
            if rejectRefresh { throw .invalidGrant("refresh tokens are refused (--test-reject-refresh)") }
            let claims: AccessTokenClaims
            do throws(TokenVerificationError) {
                claims = try tokens.verify(presented, kind: "refresh", now: now)
            } catch {
                throw .invalidGrant(error == .expired ? "the refresh token has expired" : "the refresh token is not valid")
            }
            guard claims.azp == app.clientId else { throw .invalidGrant("the refresh token was issued to another client") }
            guard let user = accounts.users.first(where: { $0.username == claims.sub }) else {
                throw .invalidGrant("the user no longer exists")
            }
            guard let family = claims.sid, let generation = claims.gen else {
                throw .invalidGrant("the refresh token is not valid (it names no login)")
            }
            let refresh = try rotation.rotate(family: family, generation: generation, now: now, expiresAt: refreshExpiry(now)) {
                family, generation in
                refreshToken(user: user, clientId: app.clientId, family: family, generation: generation, now: now)
            }
            return reply(subject: user.username, fullname: user.fullname, clientId: app.clientId, refresh: refresh, now: now)
        default:
            throw .unsupportedGrantType("grant_type '\(grantType)' is not supported (client_credentials, password, refresh_token)")
        }
    }

    /// The claims of a valid access token.
    public func verifyAccessToken(_ token: String, now: Date = Date()) throws(TokenVerificationError) -> AccessTokenClaims {
        try tokens.verify(token, kind: "access", now: now)
    }

    private func required(_ field: String, in form: [String: String]) throws(TokenEndpointError) -> String {
        guard let value = form[field], !value.isEmpty else { throw .invalidRequest("\(field) is missing") }
        return value
    }

    private func authenticate(
        _ form: [String: String], among known: [ContentServerAccounts.Credentials], grant: String
    ) throws(TokenEndpointError) -> ContentServerAccounts.Credentials {
        let clientId = try required("client_id", in: form)
        let secret = try required("client_secret", in: form)
        guard let credentials = known.first(where: { $0.clientId == clientId }) else {
            throw .invalidClient("unknown client_id for the \(grant) grant")
        }
        guard credentials.clientSecret == secret else { throw .invalidClient("wrong client_secret") }
        return credentials
    }

    private func storyClientId() -> String {
        let first = accounts.clients.first?.id ?? 0
        return "client_\(first)_\(issued.wrappingAdd(1, ordering: .relaxed).newValue)"
    }

    private func refreshExpiry(_ now: Date) -> Double {
        Double(Int64(now.timeIntervalSince1970) + Int64(refreshTokenLifetime))
    }

    private func refreshToken(
        user: ContentServerAccounts.User, clientId: String, family: String, generation: Int, now: Date
    ) -> String {
        let issuedAt = Int64(now.timeIntervalSince1970)
        return tokens.sign(
            AccessTokenClaims(
                sub: user.username, fullname: user.fullname, exp: issuedAt + Int64(refreshTokenLifetime), iat: issuedAt,
                client_id: storyClientId(), scope: Self.refreshScope, typ: "refresh", azp: clientId, sid: family,
                gen: generation))
    }

    private func reply(subject: String, fullname: String, clientId: String, refresh: String?, now: Date) -> TokenReply {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let scope = refresh == nil ? Self.accessScope : Self.refreshScope
        let access = tokens.sign(
            AccessTokenClaims(
                sub: subject, fullname: fullname, exp: issuedAt + Int64(accessTokenLifetime), iat: issuedAt,
                client_id: storyClientId(), scope: scope, typ: "access", azp: clientId))
        return TokenReply(
            access_token: access, expires_in: accessTokenLifetime, token_type: "Bearer", refresh_token: refresh, scope: scope)
    }
}
