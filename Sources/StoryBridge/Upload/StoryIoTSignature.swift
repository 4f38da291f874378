import Crypto
import Foundation

/// The StoryIoT request signature (PROTOCOL.md §7).
package enum StoryIoTSignature {
    /// `now + seconds` as ISO-8601 UTC without fractions, e.g. `2026-11-22T03:04:05Z`.
    package static func expiration(now: Date = Date(), seconds: Int) -> String {
        iso8601(now.addingTimeInterval(TimeInterval(seconds)))
    }

    /// Base64(HMAC-SHA512(secret, "key=" + key + "expiration=" + expiration)), with `/` → `_` and
    /// `+` → `-`, padding kept.
    package static func sign(key: String, expiration: String, secret: String) -> String {
        let mac = HMAC<SHA512>.authenticationCode(
            for: Data("key=\(key)expiration=\(expiration)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(mac).base64EncodedString().replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "+", with: "-")
    }

    /// Whether `signature` is right for `key` and `expiration` (compared in constant time).
    package static func verify(signature: String, key: String, expiration: String, secret: String) -> Bool {
        let expected = Array(sign(key: key, expiration: expiration, secret: secret).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }

    /// The publish URL: `{endpoint}/{hub}/publish/?key=…&expiration=…&signature=…`, values URL-encoded.
    static func publishURL(endpoint: String, hub: String, key: String, secret: String, now: Date = Date(), expirationSeconds: Int)
        -> String
    {
        let expiration = expiration(now: now, seconds: expirationSeconds)
        let signature = sign(key: key, expiration: expiration, secret: secret)
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        return "\(base)/\(encode(hub))/publish/?key=\(encode(key))&expiration=\(encode(expiration))&signature=\(encode(signature))"
    }

    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// Parses an expiration value.
    package static func parseExpiration(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// Header values must be ASCII: Cyrillic is transliterated, accents are dropped, anything else
/// outside printable ASCII is removed.
enum ASCIIHeader {
    private static let cyrillic: [Character: String] = [
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z", "и": "i", "й": "y",
        "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f",
        "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
    ]

    static func sanitize(_ value: String) -> String {
        var result = ""
        for character in value {
            let lower = Character(character.lowercased())
            if let latin = cyrillic[lower] {
                result += character.isUppercase && !latin.isEmpty ? latin.prefix(1).uppercased() + latin.dropFirst() : latin
                continue
            }
            let folded = String(character).folding(options: [.diacriticInsensitive], locale: nil)
            for scalar in folded.unicodeScalars where scalar.value >= 0x20 && scalar.value < 0x7F {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
