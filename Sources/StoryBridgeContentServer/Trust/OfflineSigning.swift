import Foundation
import StoryBridge

/// `storybridge content-server keys sign` (docs/design/TRUST.md 1.6): on the signing machine,
/// signs the manifest bodies a server with offline signing left in `content-server/trust/unsigned/`
/// (copied here), so that the signing key never is on the server. The results are copied into the
/// server's `content-server/trust/manifests/`, which serves each only once its signature verifies
/// against the server's keys document.
///
/// Every body is read and checked before anything is written: one that is not a manifest, has
/// expired, or names a keys document newer than the one given refuses the whole run, and no file
/// is written.
package struct OfflineSigning: Sendable {
    /// The signing key's private key file (0600).
    package var keyPath: String
    /// The folder of bodies to sign (`*.json`).
    package var inputFolder: String
    /// Where the signed manifests go (made when missing; a file of the same name is replaced).
    package var outputFolder: String
    /// A copy of the server's `keys.json`: the key must be one of its valid signing keys, and each
    /// body is signed under its version. Without it the key is not checked.
    package var keysDocumentPath: String?

    package init(keyPath: String, inputFolder: String, outputFolder: String, keysDocumentPath: String?) {
        self.keyPath = keyPath
        self.inputFolder = inputFolder
        self.outputFolder = outputFolder
        self.keysDocumentPath = keysDocumentPath
    }

    /// What a run signed.
    package struct Signed: Sendable, Equatable {
        /// The signing key's id.
        package var keyId: String
        /// The files written into the output folder, by name, in name order.
        package var files: [String]
        /// The keys document version the manifests were signed under (`nil` without `--keys`).
        package var keysVersion: Int?
    }

    /// Signs every body of the input folder into the output folder.
    package func run(now: Date = Date()) throws(ContentKeysError) -> Signed {
        let key: TrustPrivateKey
        let keys: KeysDocument?
        do throws(TrustFailure) {
            key = try TrustKeyFile.readPrivateKey(at: keyPath)
            keys = try keysDocumentPath.map { path throws(TrustFailure) in try SignedKeysDocument.parse(try TrustFileIO.read(path).0).body }
        } catch {
            throw .trust(error)
        }
        if let keys, !keys.validSigningKeys.contains(key.publicKey) {
            throw .notASigningKey(keyId: key.keyId, version: keys.version, revoked: keys.isRevoked(key.keyId))
        }

        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: inputFolder).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw .trust(.keyFileUnusable(path: inputFolder, reason: "cannot list the folder: \(SystemProblem(error))"))
        }
        guard !names.isEmpty else { throw .nothingToSign(inputFolder) }

        // Read and check every body first: a refusal writes nothing.
        var documents: [(name: String, document: SignedManifest)] = []
        for name in names {
            let path = (inputFolder as NSString).appendingPathComponent(name)
            var document: SignedManifest
            do throws(TrustFailure) {
                document = try SignedManifest.parse(try TrustFileIO.read(path).0)
            } catch {
                throw .notAManifest(path: path, reason: error.description)
            }
            let body = document.body
            if let expires = body.expires, expires <= now {
                throw .notAManifest(
                    path: path, reason: "it expired on \(TrustTime.format(expires)); the server writes a new body when it re-signs")
            }
            if let keys {
                if let version = body.keysVersion, version > keys.version {
                    throw .notAManifest(
                        path: path,
                        reason:
                            "it names keys document version \(version), newer than \(keysDocumentPath ?? "") (version \(keys.version)): copy the server's current keys.json"
                    )
                }
                if body.keysVersion != keys.version {
                    var renewed = body
                    renewed.keysVersion = keys.version
                    document = SignedManifest(body: renewed)
                }
            }
            documents.append((name, document))
        }

        do {
            try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
        } catch {
            throw .trust(.keyFileUnusable(path: outputFolder, reason: "cannot make the folder: \(SystemProblem(error))"))
        }
        var written: [String] = []
        do throws(TrustFailure) {
            for (name, document) in documents {
                // Signatures a body may carry are dropped: the manifest is signed by this key only.
                let signed = try SignedManifest(body: document.body).signed(with: key, context: .manifest)
                try TrustFileIO.replace(try signed.encoded(), at: (outputFolder as NSString).appendingPathComponent(name))
                written.append(name)
            }
        } catch {
            throw .trust(error)
        }
        return Signed(keyId: key.keyId, files: written, keysVersion: keys?.version)
    }
}
