import Foundation
import JWTKit

/// The claims of a token the server issues (a JWT signed with HS256), shaped as the StoryCLM auth
/// service's: `iss`, `aud`, `nbf`, `exp`, `client_id` (the OAuth client id), `scope` (an array);
/// for a user also `sub` (a stable GUID), `name` (the user name), `fullname`, `auth_time`, `idp`.
/// `typ` and, on refresh tokens, `sid` and `gen` are this server's own.
///
/// The times are checked by ``JSONWebToken/verify(_:kind:now:)`` against the server's clock (which
/// tests move by hand), not by jwt-kit's ``verify(using:)``, which knows no clock but the system's.
package struct AccessTokenClaims: Sendable, Hashable, JWTPayload {
    /// The issuer: the server's base URL.
    package var iss: String
    /// The audiences: `{iss}/resources` and the API scopes.
    package var aud: [String]
    package var nbf: Int64
    package var iat: Int64
    package var exp: Int64
    /// The OAuth client id the token was issued to (the service's or the app's).
    package var client_id: String
    package var scope: [String]
    /// The user's id, a GUID stable across restarts; absent on service tokens.
    package var sub: String?
    /// The user name; absent on service tokens.
    package var name: String?
    /// The user's full name; absent on service tokens.
    package var fullname: String?
    /// When the user logged in with a password (Unix seconds); absent on service tokens.
    var auth_time: Int64?
    /// `local` for users; absent on service tokens.
    package var idp: String?
    /// `access` or `refresh`: a refresh token is never accepted as an access token, nor the reverse.
    var typ: String
    /// Refresh tokens only: the login (family) the token belongs to.
    var sid: String?
    /// Refresh tokens only: the token's generation within its family (0 at login, +1 per refresh).
    var gen: Int?

    package init(
        iss: String, aud: [String], nbf: Int64, iat: Int64, exp: Int64, client_id: String, scope: [String], typ: String,
        sub: String? = nil, name: String? = nil, fullname: String? = nil, auth_time: Int64? = nil, idp: String? = nil,
        sid: String? = nil, gen: Int? = nil
    ) {
        self.iss = iss
        self.aud = aud
        self.nbf = nbf
        self.iat = iat
        self.exp = exp
        self.client_id = client_id
        self.scope = scope
        self.typ = typ
        self.sub = sub
        self.name = name
        self.fullname = fullname
        self.auth_time = auth_time
        self.idp = idp
        self.sid = sid
        self.gen = gen
    }

    /// Nothing to check once jwt-kit has checked the signature: ``JSONWebToken/verify(_:kind:now:)``
    /// checks the kind and the times against the server's clock.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Why a token was not accepted.
package enum TokenVerificationError: Error, Sendable, Equatable {
    case malformed
    case badSignature
    case expired
    case notYetValid
    case wrongKind
}

/// Signs and checks compact JWTs with HMAC-SHA256 (HS256), through jwt-kit.
package struct JSONWebToken: Sendable {
    /// jwt-kit's key collection holding the HMAC key; adding a key is an actor call, so the
    /// collection is made once, by a task started in ``init(key:)``.
    private let keys: Task<JWTKeyCollection, Never>
    /// How far past `exp` a token is still accepted (clocks of client and server differ a little).
    package var allowedClockSkew: TimeInterval = 5

    /// A signer with the HMAC key `key`.
    package init(key: Data) {
        let hmac = HMACKey(from: key)
        keys = Task { await JWTKeyCollection().add(hmac: hmac, digestAlgorithm: .sha256) }
    }

    /// A signed token carrying `claims` (header `{"alg":"HS256","typ":"JWT"}`).
    package func sign(_ claims: AccessTokenClaims) async -> String {
        do {
            return try await keys.value.sign(claims)
        } catch {
            // An HMAC key is always present and the claims are strings and integers: jwt-kit has
            // nothing to fail on here.
            preconditionFailure("signing a token with the HMAC key failed: \(error)")
        }
    }

    /// The claims of `token` if its signature is ours, it is of `kind` and it has not expired at `now`.
    package func verify(_ token: String, kind: String, now: Date = Date()) async throws(TokenVerificationError) -> AccessTokenClaims {
        let claims: AccessTokenClaims
        do {
            claims = try await keys.value.verify(token, as: AccessTokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
        guard claims.typ == kind else { throw .wrongKind }
        guard TimeInterval(claims.exp) + allowedClockSkew > now.timeIntervalSince1970 else { throw .expired }
        guard TimeInterval(claims.nbf) - allowedClockSkew <= now.timeIntervalSince1970 else { throw .notYetValid }
        return claims
    }
}
