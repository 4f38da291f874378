import Crypto
import Foundation

/// The claims of a token the server issues (a JWT signed with HS256), shaped as the StoryCLM auth
/// service's: `iss`, `aud`, `nbf`, `exp`, `client_id` (the OAuth client id), `scope` (an array);
/// for a user also `sub` (a stable GUID), `name` (the user name), `fullname`, `auth_time`, `idp`.
/// `typ` and, on refresh tokens, `sid` and `gen` are this server's own.
public struct AccessTokenClaims: Sendable, Hashable, Codable {
    /// The issuer: the server's base URL.
    public var iss: String
    /// The audiences: `{iss}/resources` and the API scopes.
    public var aud: [String]
    public var nbf: Int64
    public var iat: Int64
    public var exp: Int64
    /// The OAuth client id the token was issued to (the service's or the app's).
    public var client_id: String
    public var scope: [String]
    /// The user's id, a GUID stable across restarts; absent on service tokens.
    public var sub: String?
    /// The user name; absent on service tokens.
    public var name: String?
    /// The user's full name; absent on service tokens.
    public var fullname: String?
    /// When the user logged in with a password (Unix seconds); absent on service tokens.
    public var auth_time: Int64?
    /// `local` for users; absent on service tokens.
    public var idp: String?
    /// `access` or `refresh`: a refresh token is never accepted as an access token, nor the reverse.
    public var typ: String
    /// Refresh tokens only: the login (family) the token belongs to.
    public var sid: String?
    /// Refresh tokens only: the token's generation within its family (0 at login, +1 per refresh).
    public var gen: Int?

    public init(
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
}

/// Why a token was not accepted.
public enum TokenVerificationError: Error, Sendable, Equatable {
    case malformed
    case badSignature
    case expired
    case notYetValid
    case wrongKind
}

/// Signs and checks compact JWTs (`header.payload.signature`, base64url) with HMAC-SHA256.
public struct JSONWebToken: Sendable {
    let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// How far past `exp` a token is still accepted (clocks of client and server differ a little).
    public var allowedClockSkew: TimeInterval = 5

    /// A signer with the HMAC key `key`.
    public init(key: Data) {
        keyBytes = key
    }

    /// A signed token carrying `claims`.
    public func sign(_ claims: AccessTokenClaims) -> String {
        let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding a struct of strings and integers cannot fail.
        let payload = Base64URL.encode((try? encoder.encode(claims)) ?? Data())
        let signingInput = header + "." + payload
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(Data(signature))
    }

    /// The claims of `token` if its signature is ours, it is of `kind` and it has not expired at `now`.
    public func verify(_ token: String, kind: String, now: Date = Date()) throws(TokenVerificationError) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64URL.decode(String(parts[2])),
            let header = Base64URL.decode(String(parts[0])),
            let headerFields = try? JSONDecoder().decode([String: String].self, from: header), headerFields["alg"] == "HS256"
        else { throw .malformed }
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            throw .badSignature
        }
        guard let payload = Base64URL.decode(String(parts[1])),
            let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: payload)
        else { throw .malformed }
        guard claims.typ == kind else { throw .wrongKind }
        guard TimeInterval(claims.exp) + allowedClockSkew > now.timeIntervalSince1970 else { throw .expired }
        guard TimeInterval(claims.nbf) - allowedClockSkew <= now.timeIntervalSince1970 else { throw .notYetValid }
        return claims
    }
}

/// Base64 with the URL alphabet and no padding (RFC 7515 §2).
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
