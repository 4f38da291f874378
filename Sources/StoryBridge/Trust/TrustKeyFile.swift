import Foundation

/// The key files of the trust layer (docs/design/TRUST.md 1.4).
///
/// A private key file is PEM-less: the line `storybridge-ed25519-private-v1`, then the Base64 of
/// the 32 raw bytes and a newline. It is created with `O_EXCL` and mode 0600, never over an existing
/// file, and refused when read if its mode grants anything to group or others. A public key file
/// (`root.pub.json`, a signing key's `.pub.json`) is the JSON `{"keyId", "publicKey"}`.
package enum TrustKeyFile {
    /// The first line of a private key file.
    static let privateKeyHeader = "storybridge-ed25519-private-v1"

    /// Writes `key` to a new file `path`, mode 0600.
    package static func writePrivateKey(_ key: TrustPrivateKey, to path: String) throws(TrustFailure) {
        let text = "\(privateKeyHeader)\n\(key.rawRepresentation.base64EncodedString())\n"
        try TrustFileIO.writeNew(Data(text.utf8), to: path, mode: 0o600)
    }

    /// Reads the private key at `path`, refusing a file readable by group or others.
    package static func readPrivateKey(at path: String) throws(TrustFailure) -> TrustPrivateKey {
        let (bytes, mode) = try TrustFileIO.read(path, limit: 4096)
        guard mode & 0o077 == 0 else { throw .keyFileExposed(path: path, mode: mode) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.count == 2, lines[0] == privateKeyHeader else {
            throw .keyFileMalformed(path: path, reason: "it does not start with the line \(privateKeyHeader)")
        }
        guard let raw = Data(base64Encoded: String(lines[1])) else {
            throw .keyFileMalformed(path: path, reason: "its second line is not Base64")
        }
        do {
            return try TrustPrivateKey(rawRepresentation: raw)
        } catch {
            throw .keyFileMalformed(path: path, reason: "its second line is not 32 bytes of an Ed25519 key")
        }
    }

    /// The JSON text of a public key file for `key`.
    static func publicKeyText(_ key: TrustPublicKey) -> Data {
        // A key's JSON holds two strings: always encodable.
        Data((try! CanonicalJSON.encode(key.json)) + [0x0A])
    }

    /// Writes `key` as a new public key file `path` (mode 0644), never over an existing file.
    package static func writePublicKey(_ key: TrustPublicKey, to path: String) throws(TrustFailure) {
        try TrustFileIO.writeNew(publicKeyText(key), to: path, mode: 0o644)
    }

    /// Reads the public key file at `path`.
    package static func readPublicKey(at path: String) throws(TrustFailure) -> TrustPublicKey {
        let (bytes, _) = try TrustFileIO.read(path, limit: 4096)
        do throws(TrustFailure) {
            return try TrustPublicKey(json: CanonicalJSON.parse(bytes), what: "public key file")
        } catch {
            throw .keyFileMalformed(path: path, reason: error.description)
        }
    }
}
