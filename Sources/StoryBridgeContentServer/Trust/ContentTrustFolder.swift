import Foundation
import StoryBridge

/// The content server's trust files, `content-server/trust/` in the data folder (mode 0700;
/// docs/design/TRUST.md 1.4): the root's public key, the signed keys document, the online signing
/// keys, the signed manifests and the bodies waiting for an offline signature. The root's private
/// key is never here.
package struct ContentTrustFolder: Sendable {
    /// `content-server/trust`.
    package let root: URL

    /// The trust folder of the data folder `dataDirectory`.
    package init(dataDirectory: DataDirectory) {
        root = dataDirectory.root.appendingPathComponent("content-server/trust")
    }

    /// `root.pub.json`: the root's public key, what kiosks pin.
    package var rootPublicKey: URL { root.appendingPathComponent("root.pub.json") }
    /// `keys.json`: the current signed keys document. Signing is on when it exists.
    package var keysDocument: URL { root.appendingPathComponent("keys.json") }
    /// `signing/`: the online signing keys' private keys, `<keyId>.key`, 0600.
    package var signingKeys: URL { root.appendingPathComponent("signing") }
    /// `manifests/`: the signed manifests served, `<packageId>-r<rev>.json`.
    package var manifests: URL { root.appendingPathComponent("manifests") }
    /// `unsigned/`: offline signing's bodies waiting for `keys sign`.
    package var unsigned: URL { root.appendingPathComponent("unsigned") }

    /// The private key file of the online signing key `keyId`.
    package func signingKey(_ keyId: String) -> URL { signingKeys.appendingPathComponent("\(keyId).key") }

    /// Whether this server signs (its keys document exists).
    package var signs: Bool { FileManager.default.fileExists(atPath: keysDocument.path) }

    /// The current keys document, as stored (it was signed here; it is read back without judging it).
    package func readKeys() throws(ContentKeysError) -> SignedKeysDocument {
        guard signs else { throw .notInitialised(keysDocument.path) }
        do throws(TrustFailure) {
            let (bytes, _) = try TrustFileIO.read(keysDocument.path)
            return try SignedKeysDocument.parse(bytes)
        } catch {
            throw .trust(error)
        }
    }

    /// The ids of the signing keys whose private key is in `signing/`.
    package func onlineKeyIds() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: signingKeys.path)) ?? []
        return Set(names.filter { $0.hasSuffix(".key") }.map { String($0.dropLast(4)) })
    }
}

/// Why a `content-server keys` operation was refused, with the exit status the command ends with
/// (sysexits: 65 bad input, 66 no input, 73 cannot create, 74 storage, 78 configuration).
package enum ContentKeysError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `keys init` when the server already has keys (re-initialising would orphan every kiosk).
    case alreadyInitialised(String)
    /// A keys command other than `init` before `init`.
    case notInitialised(String)
    /// `--root-out` names a file that exists.
    case rootOutExists(String)
    /// `--root-out`'s folder may be written by group or others.
    case unsafeFolder(String)
    /// The root key given is not the server's root.
    case wrongRoot(path: String, expected: String, given: String)
    /// `revoke` of a key id that is not a signing key of the document.
    case unknownKey(String)
    /// `keys sign` with a key that is not a valid signing key of the keys document given.
    case notASigningKey(keyId: String, version: Int, revoked: Bool)
    /// `keys sign` of a folder without a body (`*.json`).
    case nothingToSign(String)
    /// `keys sign` of a file that is not a manifest body it can sign (malformed, expired, or under a newer keys document).
    case notAManifest(path: String, reason: String)
    /// A key file, document or folder of the trust layer could not be used.
    case trust(TrustFailure)

    package var description: String {
        switch self {
        case .alreadyInitialised(let path):
            "this server has keys already (\(path)); re-initialising would orphan every kiosk that pinned its root"
        case .notInitialised(let path):
            "this server signs nothing yet (no \(path)); run `storybridge content-server keys init --root-out PATH` first"
        case .rootOutExists(let path): "\(path) exists already; the root key is never written over a file"
        case .unsafeFolder(let path): "\(path) may be written by group or others; keep the root key in a folder only you can write"
        case .wrongRoot(let path, let expected, let given):
            "\(path) is not this server's root key (it is \(given); root.pub.json names \(expected))"
        case .unknownKey(let keyId): "\(keyId) is not a signing key of this server's keys document"
        case .notASigningKey(let keyId, let version, let revoked):
            revoked
                ? "\(keyId) is revoked in keys document version \(version): kiosks refuse what it signs; sign with another key"
                : "\(keyId) is not a signing key of keys document version \(version); add it first (`keys add-signing --offline --public FILE`)"
        case .nothingToSign(let path): "\(path) holds no manifest body (*.json); copy content-server/trust/unsigned/ from the server"
        case .notAManifest(let path, let reason): "\(path) cannot be signed: \(reason); nothing was written"
        case .trust(let failure): failure.description
        }
    }

    /// The exit status of the command that failed so.
    package var exitStatus: Int32 {
        switch self {
        case .rootOutExists: 73
        case .unknownKey, .notAManifest: 65
        case .nothingToSign: 66
        case .alreadyInitialised, .notInitialised, .unsafeFolder, .wrongRoot, .notASigningKey: 78
        case .trust(let failure):
            switch failure {
            case .keyFileExists: 73
            case .keyFileUnusable: 74
            default: 78
            }
        }
    }
}
