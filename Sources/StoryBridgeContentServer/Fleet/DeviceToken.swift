import Crypto
import Foundation
import StoryBridge

/// A device token (docs/design/FLEET.md §5.2): `sbd_` + the device id's 10 characters (base32 of
/// 6 random bytes) + `_` + the secret (base64url of 32 random bytes, 43 characters), 58
/// characters in all. The hub keeps only the device id and SHA-256 of the secret; the token is
/// printed once, when the device is added, and never stored.
package struct DeviceToken: Sendable, Equatable, CustomStringConvertible {
    /// The device id, `d_` + 10 base32 characters.
    package let deviceId: String
    /// The secret part (43 characters).
    package let secret: String

    /// What every device token starts with.
    static let prefix = "sbd_"
    private static let idLength = 10
    private static let secretLength = 43
    /// The length of a token's text.
    package static let length = prefix.count + idLength + 1 + secretLength

    /// A new device id and secret from the system's random generator.
    package static func generate() -> DeviceToken {
        var generator = SystemRandomNumberGenerator()
        let idBytes = (0..<6).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secretBytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return DeviceToken(deviceId: "d_" + Base32.lowercaseUnpadded(idBytes), secret: base64url(secretBytes))
    }

    private init(deviceId: String, secret: String) {
        self.deviceId = deviceId
        self.secret = secret
    }

    /// The token of `text` (surrounding white space, such as a file's trailing newline, ignored),
    /// or nil when it is not of the token's form.
    package init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(text.utf8)
        guard bytes.count == Self.length, text.hasPrefix(Self.prefix) else { return nil }
        let id = bytes[Self.prefix.count..<Self.prefix.count + Self.idLength]
        let separator = bytes[Self.prefix.count + Self.idLength]
        let secret = bytes[(Self.prefix.count + Self.idLength + 1)...]
        let base32 = Set("abcdefghijklmnopqrstuvwxyz234567".utf8)
        let base64url = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard separator == UInt8(ascii: "_"), id.allSatisfy(base32.contains), secret.allSatisfy(base64url.contains) else {
            return nil
        }
        deviceId = "d_" + String(decoding: id, as: UTF8.self)
        self.secret = String(decoding: secret, as: UTF8.self)
    }

    /// The token's text, for the one time it is shown or written.
    package var text: String { Self.prefix + deviceId.dropFirst(2) + "_" + secret }

    /// SHA-256 of the secret's text: what the hub stores.
    package var secretHash: Data { Self.hash(secret: secret) }

    /// SHA-256 of `secret`'s UTF-8 bytes.
    package static func hash(secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }

    /// Whether this token's secret hashes to `storedHash` (compared in constant time).
    package func matches(storedHash: Data) -> Bool {
        ConstantTime.equal(secretHash, storedHash)
    }

    /// Names the device only: a token is never printed by accident.
    package var description: String { "device token of \(deviceId)" }

    private static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
