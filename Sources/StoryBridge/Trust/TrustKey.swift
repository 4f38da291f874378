import Crypto
import Foundation

/// An Ed25519 public key of the trust layer (a root, signing or host key) with its key id: the
/// first 16 bytes of SHA-256 of the 32 raw bytes, as 32 lower-case hex digits.
package struct TrustPublicKey: Sendable, Hashable {
    /// The 32 raw bytes.
    package let rawRepresentation: Data
    /// The key id (32 hex digits).
    package let keyId: String

    /// The key of `rawRepresentation`; refuses anything but 32 bytes of an Ed25519 point.
    package init(rawRepresentation: Data) throws(TrustFailure) {
        guard rawRepresentation.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation)) != nil else {
            throw .malformed(what: "public key", reason: "not 32 bytes of an Ed25519 public key")
        }
        self.rawRepresentation = rawRepresentation
        keyId = Self.keyId(of: rawRepresentation)
    }

    /// The key written as Base64 (`publicKey` in the documents).
    package init(base64: String) throws(TrustFailure) {
        guard let raw = Data(base64Encoded: base64) else {
            throw .malformed(what: "public key", reason: "not Base64")
        }
        try self.init(rawRepresentation: raw)
    }

    /// The key id of the raw public key `raw`.
    package static func keyId(of raw: Data) -> String {
        SHA256.hash(data: raw).prefix(16).hexDigits
    }

    /// The key as Base64.
    package var base64: String { rawRepresentation.base64EncodedString() }

    /// `{"keyId", "publicKey"}`: the body of `root.pub.json` and of a key document's entries.
    package var json: JSONValue { ["keyId": .string(keyId), "publicKey": .string(base64)] }

    /// Reads `{"keyId", "publicKey"}`, refusing a key id that is not the key's own.
    package init(json: JSONValue, what: String) throws(TrustFailure) {
        guard let keyId = json["keyId"]?.stringValue, let base64 = json["publicKey"]?.stringValue else {
            throw .malformed(what: what, reason: "it needs the strings \"keyId\" and \"publicKey\"")
        }
        try self.init(base64: base64)
        guard self.keyId == keyId else {
            throw .malformed(what: what, reason: "its keyId \(keyId) is not the id of its key (\(self.keyId))")
        }
    }

    /// Whether `signature` is this key's Ed25519 signature of `bytes`.
    package func isValidSignature(_ signature: Data, for bytes: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: Data(bytes))
    }
}

/// An Ed25519 private key (a root, signing or host key). It has no description or mirror that
/// shows its bytes: `print(key)` and `dump(key)` name only the key id. Its bytes leave the process
/// only through ``TrustKeyFile``.
package struct TrustPrivateKey: Sendable, CustomStringConvertible, CustomReflectable {
    private let key: Curve25519.Signing.PrivateKey

    /// A new random key.
    package init() {
        key = Curve25519.Signing.PrivateKey()
    }

    /// The key of 32 raw bytes.
    init(rawRepresentation: Data) throws(TrustFailure) {
        guard rawRepresentation.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation) else {
            throw .malformed(what: "private key", reason: "not 32 bytes of an Ed25519 private key")
        }
        self.key = key
    }

    /// The 32 raw bytes; only the key file writer reads them.
    var rawRepresentation: Data { key.rawRepresentation }

    /// The matching public key.
    package var publicKey: TrustPublicKey {
        // A public key made by swift-crypto is always 32 valid bytes.
        try! TrustPublicKey(rawRepresentation: key.publicKey.rawRepresentation)
    }

    /// The key id of the public key.
    package var keyId: String { TrustPublicKey.keyId(of: key.publicKey.rawRepresentation) }

    /// The Ed25519 signature (64 bytes) of `bytes`.
    package func signature(for bytes: [UInt8]) throws(TrustFailure) -> Data {
        do {
            return try key.signature(for: Data(bytes))
        } catch {
            throw .malformed(what: "private key", reason: "it cannot sign: \(error)")
        }
    }

    /// Names the key by its id only.
    package var description: String { "Ed25519 private key \(keyId)" }

    /// No children: reflection shows nothing of the key.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Sequence<UInt8> {
    /// The bytes as lower-case hex digits.
    package var hexDigits: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
