import Foundation

/// The token endpoint's answer.
public struct TokenReply: Decodable, Sendable, Hashable {
    public var accessToken: String
    public var expiresIn: Int?
    public var tokenType: String?
    public var refreshToken: String?
    public var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case scope
    }
}

/// The claims of an access token (a JWT) sync reads: who is logged in and until when. The
/// signature is the server's business; a token that is not a JWT simply has no claims.
public struct AccessTokenClaims: Sendable, Hashable {
    public var subject: String?
    public var fullName: String?
    public var expires: Date?

    public init(jwt: String) {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return }
        subject = object["sub"] as? String
        fullName = object["fullname"] as? String
        if let exp = object["exp"] as? NSNumber { expires = Date(timeIntervalSince1970: exp.doubleValue) }
    }
}
