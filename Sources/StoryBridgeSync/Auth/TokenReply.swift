import Foundation
import JWTKit

/// The token endpoint's answer.
package struct TokenReply: Decodable, Sendable, Hashable {
    package var accessToken: String
    var expiresIn: Int?
    var tokenType: String?
    package var refreshToken: String?
    package var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case scope
    }
}

/// The claims of an access token (a JWT) sync reads: who is logged in and until when. The
/// signature is the server's business (sync holds no key, so jwt-kit reads the token unverified);
/// a token that is not a JWT simply has no claims.
package struct AccessTokenClaims: Sendable, Hashable {
    package var subject: String?
    var fullName: String?
    package var expires: Date?

    /// The claims `jwt` carries; none when it is not a JWT.
    package init(jwt: String) {
        guard let payload = try? DefaultJWTParser().parse(Array(jwt.utf8), as: ReadClaims.self).payload else { return }
        subject = payload.sub
        fullName = payload.fullname
        expires = payload.exp
    }

    /// The payload fields sync reads; any other claim is ignored.
    private struct ReadClaims: JWTPayload {
        var sub: String?
        var fullname: String?
        var exp: Date?

        /// Nothing to check: sync cannot verify the server's signature and only displays these.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
