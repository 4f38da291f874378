/// A request to the token endpoint (`POST {auth}/connect/token`, form-encoded).
package enum TokenGrant: Sendable, Hashable {
    /// A service account: `grant_type=client_credentials`.
    case clientCredentials(clientId: String, clientSecret: String)
    /// A user of an application: `grant_type=password` with the application's id and secret.
    case password(clientId: String, clientSecret: String, username: String, password: String)
    /// Renewal of a user session: `grant_type=refresh_token`.
    case refreshToken(clientId: String, clientSecret: String, refreshToken: String)

    /// The form fields, in a stable order.
    var formFields: [(String, String)] {
        switch self {
        case .clientCredentials(let id, let secret):
            return [("grant_type", "client_credentials"), ("client_id", id), ("client_secret", secret)]
        case .password(let id, let secret, let username, let password):
            return [
                ("grant_type", "password"), ("client_id", id), ("client_secret", secret), ("username", username),
                ("password", password),
            ]
        case .refreshToken(let id, let secret, let token):
            return [("grant_type", "refresh_token"), ("client_id", id), ("client_secret", secret), ("refresh_token", token)]
        }
    }

    /// `application/x-www-form-urlencoded` body.
    var formBody: String {
        formFields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
    }

    var isRefresh: Bool {
        if case .refreshToken = self { return true }
        return false
    }

    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
