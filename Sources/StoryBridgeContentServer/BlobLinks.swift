import Crypto
import Foundation
import StoryBridge

/// The form of the `sas` links the server hands out (`--blob-links`).
package enum BlobLinkStyle: String, Sendable, Hashable, CaseIterable {
    /// `{base}{path}?exp={unix seconds}&sig={hex HMAC-SHA256}`: short and readable.
    case storybridge
    /// The form of an Azure Blob Storage service SAS, as the real service's links are:
    /// `{base}{path}?sv=2016-05-31&sr=b&sig={Base64 HMAC-SHA256, percent-encoded}&st={start}&se={expiry}&sp=r`,
    /// times as ISO 8601 UTC (`2026-11-26T12:00:00Z`, percent-encoded).
    case azure
}

/// Signs and checks the time-limited blob links handed out as `sas`, in either ``BlobLinkStyle``.
/// Both sign the path and the expiry with a key derived from the server's secret; a link of
/// either form that this server signed is accepted.
struct BlobLinks: Sendable {
    let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// How long a link stays valid, in seconds.
    let lifetime: Int
    var style = BlobLinkStyle.storybridge

    /// The Azure storage service version the Azure-form links name.
    static let azureVersion = "2016-05-31"
    /// How far before the issue time an Azure-form link's `st` lies (clocks differ a little).
    static let azureStartLeeway: Int64 = 300

    /// A signed link to `path` (which starts with `/blobs/`) on `base` (`http://host:port`).
    func link(base: String, path: String, now: Date = Date()) -> String {
        // Rounded up, so a link lives at least `lifetime` seconds.
        let expiry = Int64(now.timeIntervalSince1970.rounded(.up)) + Int64(lifetime)
        switch style {
        case .storybridge:
            return "\(base)\(path)?exp=\(expiry)&sig=\(hexSignature(path: path, expiry: expiry))"
        case .azure:
            let start = Self.isoDate(Int64(now.timeIntervalSince1970) - Self.azureStartLeeway)
            let end = Self.isoDate(expiry)
            let signature = azureSignature(path: path, start: start, end: end)
            return "\(base)\(path)?sv=\(Self.azureVersion)&sr=b&sig=\(Self.percentEncoded(signature))"
                + "&st=\(Self.percentEncoded(start))&se=\(Self.percentEncoded(end))&sp=r"
        }
    }

    /// Refuses a link whose signature is not ours or whose expiry has passed; `query` holds the
    /// link's query parameters, percent-decoded.
    func verify(path: String, query: [String: String], now: Date = Date()) throws(ContentAPIError) {
        let seconds: Int64
        if let end = query["se"] {
            guard let signature = query["sig"], !signature.isEmpty, let start = query["st"], query["sp"] == "r",
                query["sr"] == "b", let date = Self.parseISODate(end)
            else {
                throw .forbidden("the link is not signed (sv, sr=b, st, se, sp=r and sig are required)")
            }
            guard Self.constantTimeEqual(signature, azureSignature(path: path, start: start, end: end)) else {
                throw .forbidden("the link's signature is not valid")
            }
            seconds = date
        } else {
            guard let expiry = query["exp"], let value = Int64(expiry), let signature = query["sig"], !signature.isEmpty else {
                throw .forbidden("the link is not signed (exp and sig are required)")
            }
            guard Self.constantTimeEqual(signature.lowercased(), hexSignature(path: path, expiry: value)) else {
                throw .forbidden("the link's signature is not valid")
            }
            seconds = value
        }
        guard Double(seconds) > now.timeIntervalSince1970 else { throw .forbidden("the link has expired") }
    }

    private func mac(_ text: String) -> HashedAuthenticationCode<SHA256> {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key)
    }

    private func hexSignature(path: String, expiry: Int64) -> String {
        mac("\(path)\n\(expiry)").map { String(format: "%02x", $0) }.joined()
    }

    private func azureSignature(path: String, start: String, end: String) -> String {
        Data(mac("azure\n\(path)\n\(start)\n\(end)\nr")).base64EncodedString()
    }

    /// Percent-encodes everything but unreserved characters (so `+`, `/`, `=` and `:` are encoded).
    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func isoDate(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func parseISODate(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }

    private static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        ConstantTime.equal(left, right)
    }
}
