import Foundation
import Hummingbird

/// The answer of a successful `POST /connect/token`.
package struct TokenReply: Sendable, Hashable, Codable {
    package var access_token: String
    package var expires_in: Int
    package var token_type: String
    package var refresh_token: String?
    /// The granted scopes, space-separated (OAuth 2); the token's `scope` claim has them as an array.
    package var scope: String?
}

/// Issues tokens for the three grants and checks access tokens.
///
/// Access tokens carry the claims of the StoryCLM auth service (see ``AccessTokenClaims``): a
/// service token names its OAuth client only; a user token also the user's GUID (`sub`), user name
/// (`name`) and full name. Refresh tokens (password grant only) are signed JWTs valid for a year
/// that rotate (see ``RefreshTokenRotation``): a refresh answers a new access token and a new
/// refresh token, and the one presented is refused from then on (after a short grace for a
/// concurrent use). A user removed from the config can no longer refresh.
final class TokenService: Sendable {
    let accounts: ContentServerAccounts
    let tokens: JSONWebToken
    let accessTokenLifetime: Int
    let refreshTokenLifetime: Int
    let rejectRefresh: Bool
    let rotation: RefreshTokenRotation
    /// The issuer (`iss`): the server's base URL, known once it listens.
    let issuer: LinkBase

    /// The scopes of a service token, as the StoryCLM service grants them.
    static let serviceScopes = ["content", "myo", "tables"]
    /// The scopes of a user token (with `offline_access`: it comes with a refresh token).
    static let userScopes = ["content", "myo", "tables", "offline_access"]

    init(
        accounts: ContentServerAccounts, tokens: JSONWebToken, accessTokenLifetime: Int, refreshTokenLifetime: Int,
        rejectRefresh: Bool, rotation: RefreshTokenRotation, issuer: LinkBase
    ) {
        self.rotation = rotation
        self.accounts = accounts
        self.tokens = tokens
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.rejectRefresh = rejectRefresh
        self.issuer = issuer
    }

    /// Answers a token request given its decoded form fields.
    package func grant(_ form: [String: String], now: Date = Date()) async throws(TokenEndpointError) -> TokenReply {
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            throw .invalidRequest("grant_type is missing")
        }
        switch grantType {
        case "client_credentials":
            let service = try authenticate(form, among: accounts.services, grant: grantType)
            return await reply(clientId: service.clientId, user: nil, loggedInAt: nil, refresh: nil, now: now)
        case "password":
            let app = try authenticate(form, among: accounts.apps, grant: grantType)
            let username = try required("username", in: form)
            let password = try required("password", in: form)
            guard let user = accounts.users.first(where: { $0.username == username }), await user.verifies(password) else {
                throw .invalidGrant("wrong user name or password")
            }
            let loggedInAt = Int64(now.timeIntervalSince1970)
            let refresh = await rotation.start(now: now, expiresAt: refreshExpiry(now)) { family, generation in
                await refreshToken(
                    user: user, clientId: app.clientId, loggedInAt: loggedInAt, family: family, generation: generation, now: now)
            }
            return await reply(clientId: app.clientId, user: user, loggedInAt: loggedInAt, refresh: refresh, now: now)
        case "refresh_token":
            let app = try authenticate(form, among: accounts.apps, grant: grantType)
            let presented = try required("refresh_token", in: form)
            if rejectRefresh { throw .invalidGrant("refresh tokens are refused (--test-reject-refresh)") }
            let claims: AccessTokenClaims
            do throws(TokenVerificationError) {
                claims = try await tokens.verify(presented, kind: "refresh", now: now)
            } catch {
                throw .invalidGrant(error == .expired ? "the refresh token has expired" : "the refresh token is not valid")
            }
            guard claims.client_id == app.clientId else { throw .invalidGrant("the refresh token was issued to another client") }
            guard let user = accounts.users.first(where: { $0.guid == claims.sub }) else {
                throw .invalidGrant("the user no longer exists")
            }
            guard let family = claims.sid, let generation = claims.gen else {
                throw .invalidGrant("the refresh token is not valid (it names no login)")
            }
            let loggedInAt = claims.auth_time ?? claims.iat
            let refresh = try await rotation.rotate(family: family, generation: generation, now: now, expiresAt: refreshExpiry(now)) {
                family, generation in
                await refreshToken(
                    user: user, clientId: app.clientId, loggedInAt: loggedInAt, family: family, generation: generation, now: now)
            }
            return await reply(clientId: app.clientId, user: user, loggedInAt: loggedInAt, refresh: refresh, now: now)
        default:
            throw .unsupportedGrantType("grant_type '\(grantType)' is not supported (client_credentials, password, refresh_token)")
        }
    }

    /// The claims of a valid access token.
    func verifyAccessToken(_ token: String, now: Date = Date()) async throws(TokenVerificationError) -> AccessTokenClaims {
        try await tokens.verify(token, kind: "access", now: now)
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

    private func refreshExpiry(_ now: Date) -> Double {
        Double(Int64(now.timeIntervalSince1970) + Int64(refreshTokenLifetime))
    }

    /// The claims every token of `clientId` (and `user`) carries, issued at `now` for `lifetime`.
    private func claims(
        clientId: String, user: ContentServerAccounts.User?, loggedInAt: Int64?, scopes: [String], typ: String, lifetime: Int,
        now: Date
    ) -> AccessTokenClaims {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let iss = issuer.base
        return AccessTokenClaims(
            iss: iss, aud: ["\(iss)/resources"] + scopes.filter { $0 != "offline_access" }, nbf: issuedAt, iat: issuedAt,
            exp: issuedAt + Int64(lifetime), client_id: clientId, scope: scopes, typ: typ, sub: user?.guid, name: user?.username,
            fullname: user?.fullname, auth_time: user == nil ? nil : loggedInAt, idp: user == nil ? nil : "local")
    }

    private func refreshToken(
        user: ContentServerAccounts.User, clientId: String, loggedInAt: Int64, family: String, generation: Int, now: Date
    ) async -> String {
        var refresh = claims(
            clientId: clientId, user: user, loggedInAt: loggedInAt, scopes: Self.userScopes, typ: "refresh",
            lifetime: refreshTokenLifetime, now: now)
        refresh.sid = family
        refresh.gen = generation
        return await tokens.sign(refresh)
    }

    private func reply(
        clientId: String, user: ContentServerAccounts.User?, loggedInAt: Int64?, refresh: String?, now: Date
    ) async -> TokenReply {
        let scopes = user == nil ? Self.serviceScopes : Self.userScopes
        let access = await tokens.sign(
            claims(
                clientId: clientId, user: user, loggedInAt: loggedInAt, scopes: scopes, typ: "access", lifetime: accessTokenLifetime,
                now: now))
        return TokenReply(
            access_token: access, expires_in: accessTokenLifetime, token_type: "Bearer", refresh_token: refresh,
            scope: scopes.joined(separator: " "))
    }
}
