import Crypto
import Foundation

/// Signs and checks the time-limited blob links handed out as `sas`:
/// `{base}{path}?exp={unix seconds}&sig={hex HMAC-SHA256 over "path\nexp"}`.
struct BlobLinks: Sendable {
    let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// How long a link stays valid, in seconds.
    let lifetime: Int

    /// A signed link to `path` (which starts with `/blobs/`) on `base` (`http://host:port`).
    func link(base: String, path: String, now: Date = Date()) -> String {
        let expiry = Int64(now.timeIntervalSince1970) + Int64(lifetime)
        return "\(base)\(path)?exp=\(expiry)&sig=\(signature(path: path, expiry: expiry))"
    }

    /// Refuses a link whose signature is not ours or whose expiry has passed.
    func verify(path: String, expiry: String?, signature given: String?, now: Date = Date()) throws(ContentAPIError) {
        guard let expiry, let seconds = Int64(expiry), let given, !given.isEmpty else {
            throw .forbidden("the link is not signed (exp and sig are required)")
        }
        guard Self.constantTimeEqual(given.lowercased(), signature(path: path, expiry: seconds)) else {
            throw .forbidden("the link's signature is not valid")
        }
        guard Double(seconds) > now.timeIntervalSince1970 else { throw .forbidden("the link has expired") }
    }

    private func signature(path: String, expiry: Int64) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("\(path)\n\(expiry)".utf8), using: key)
            .map { String(format: "%02x", $0) }.joined()
    }

    private static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
