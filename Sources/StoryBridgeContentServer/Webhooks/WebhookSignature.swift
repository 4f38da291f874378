import Crypto
import Foundation

/// The `X-StoryBridge-Signature` header of a webhook request (docs/design/FLEET.md §8.2):
/// `t=<Unix time of the attempt>,v1=<lower-case hex HMAC-SHA256>`, the HMAC keyed with the
/// endpoint's secret over the bytes `"<t>." + body`. Each attempt signs anew with its own time.
package enum WebhookSignature {
    /// The header's name.
    package static let header = "X-StoryBridge-Signature"
    /// How old a `t` a receiver should accept, in seconds.
    package static let tolerance = 300

    /// The header's value for `body` sent at Unix time `time` with `secret`.
    package static func value(body: some DataProtocol, secret: some ContiguousBytes, time: Int) -> String {
        "t=\(time),v1=\(hex(mac(body: body, secret: secret, time: time)))"
    }

    /// Whether `header` signs `body` with `secret` and its `t` is within ``tolerance`` of `now`
    /// (a receiver's check, compared in constant time).
    package static func verify(header: String, body: some DataProtocol, secret: some ContiguousBytes, now: Int) -> Bool {
        var time: Int?
        var signature: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { time = Int(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { signature = String(part.dropFirst(3)) }
        }
        guard let time, let signature, abs(now - time) <= tolerance, let presented = bytes(hex: signature) else { return false }
        let key = SymmetricKey(data: secret)
        return HMAC<SHA256>.isValidAuthenticationCode(presented, authenticating: signedBytes(body: body, time: time), using: key)
    }

    private static func mac(body: some DataProtocol, secret: some ContiguousBytes, time: Int) -> HMAC<SHA256>.MAC {
        HMAC<SHA256>.authenticationCode(for: signedBytes(body: body, time: time), using: SymmetricKey(data: secret))
    }

    private static func signedBytes(body: some DataProtocol, time: Int) -> Data {
        var bytes = Data("\(time).".utf8)
        bytes.append(contentsOf: body)
        return bytes
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < characters.count {
            guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
