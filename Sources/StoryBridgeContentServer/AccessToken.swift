import Crypto
import Foundation

/// The claims of an access token the server issues (a JWT signed with HS256).
public struct AccessTokenClaims: Sendable, Hashable, Codable {
    /// The user name for the password grant, the service's client id for client credentials.
    public var sub: String
    /// The user's full name (the service's client id for client credentials).
    public var fullname: String
    public var exp: Int64
    public var iat: Int64
    /// `client_<first client id>_<n>`, the shape StoryCLM SDKs parse.
    public var client_id: String
    public var scope: String
    /// `access` or `refresh`: a refresh token is never accepted as an access token, nor the reverse.
    public var typ: String
    /// The app or service client id the token was issued to.
    public var azp: String
    /// Refresh tokens only: the login (family) the token belongs to.
    public var sid: String?
    /// Refresh tokens only: the token's generation within its family (0 at login, +1 per refresh).
    public var gen: Int?

    public init(
        sub: String, fullname: String, exp: Int64, iat: Int64, client_id: String, scope: String, typ: String, azp: String,
        sid: String? = nil, gen: Int? = nil
    ) {
        self.sid = sid
        self.gen = gen
        self.sub = sub
        self.fullname = fullname
        self.exp = exp
        self.iat = iat
        self.client_id = client_id
        self.scope = scope
        self.typ = typ
        self.azp = azp
    }
}

/// Why a token was not accepted.
public enum TokenVerificationError: Error, Sendable, Equatable {
    case malformed
    case badSignature
    case expired
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
