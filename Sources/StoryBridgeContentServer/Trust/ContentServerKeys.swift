import Foundation
import StoryBridge

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The operations behind `storybridge content-server keys` (docs/design/TRUST.md 1.6): make the
/// root and the first signing key, add and revoke signing keys, and report. The root's private key
/// is read from the path given each time and never copied into the data folder.
package struct ContentServerKeys: Sendable {
    /// How long a keys document is good for after it is signed: one year.
    static let keysLifetime: TimeInterval = 365 * 86_400

    package let folder: ContentTrustFolder

    package init(folder: ContentTrustFolder) {
        self.folder = folder
    }

    /// What `keys init` made.
    package struct Initialised: Sendable {
        package var rootKeyId: String
        package var rootPublicKeyFile: URL
        /// `nil` with offline signing.
        package var signingKeyId: String?
    }

    /// Makes a root key (written only to `rootOut`, 0600), a first signing key (into `signing/`,
    /// unless `offline`), `root.pub.json` and `keys.json` version 1.
    package func initialise(rootOut: String, offline: Bool, now: Date = Date()) throws(ContentKeysError) -> Initialised {
        guard !folder.signs, !FileManager.default.fileExists(atPath: folder.rootPublicKey.path) else {
            throw .alreadyInitialised(folder.keysDocument.path)
        }
        var status = stat()
        guard lstat(rootOut, &status) != 0 else { throw .rootOutExists(rootOut) }
        let rootFolder = URL(fileURLWithPath: rootOut).deletingLastPathComponent().path
        guard stat(rootFolder, &status) == 0 else { throw .trust(.keyFileUnusable(path: rootFolder, reason: "no such folder")) }
        guard status.st_mode & 0o022 == 0 else { throw .unsafeFolder(rootFolder) }

        let root = TrustPrivateKey()
        do throws(TrustFailure) {
            try TrustKeyFile.writePrivateKey(root, to: rootOut)
            try TrustFileIO.makePrivateFolder(folder.root.path)
            try TrustFileIO.makePrivateFolder(folder.signingKeys.path)
            var signingKeys: [KeyEntry] = []
            var signingKeyId: String?
            if !offline {
                let signing = TrustPrivateKey()
                try TrustKeyFile.writePrivateKey(signing, to: folder.signingKey(signing.keyId).path)
                signingKeys.append(KeyEntry(key: signing.publicKey, since: now))
                signingKeyId = signing.keyId
            }
            try TrustKeyFile.writePublicKey(root.publicKey, to: folder.rootPublicKey.path)
            let keys = KeysDocument(
                version: 1, created: now, expires: now.addingTimeInterval(Self.keysLifetime), root: root.publicKey,
                signingKeys: signingKeys, revoked: [])
            try write(keys, signedBy: root)
            return Initialised(rootKeyId: root.keyId, rootPublicKeyFile: folder.rootPublicKey, signingKeyId: signingKeyId)
        } catch {
            throw .trust(error)
        }
    }

    /// Makes a signing key pair outside any data folder (the offline signing machine): the private
    /// key at `out` (0600) and its public key file beside it; returns the public key file.
    package static func newSigningKey(out: String) throws(ContentKeysError) -> (keyId: String, publicKeyFile: String) {
        let key = TrustPrivateKey()
        let publicFile = publicKeyFile(for: out)
        var status = stat()
        guard lstat(publicFile, &status) != 0 else { throw .trust(.keyFileExists(path: publicFile)) }
        do throws(TrustFailure) {
            try TrustKeyFile.writePrivateKey(key, to: out)
            try TrustKeyFile.writePublicKey(key.publicKey, to: publicFile)
        } catch {
            throw .trust(error)
        }
        return (key.keyId, publicFile)
    }

    /// The public key file written beside the private key file `path`: `x.key` → `x.pub.json`.
    package static func publicKeyFile(for path: String) -> String {
        (path.hasSuffix(".key") ? String(path.dropLast(4)) : path) + ".pub.json"
    }

    /// Adds a signing key (made here and kept in `signing/`, or, offline, the public key of
    /// `publicKeyFile`) in a new keys document version signed by the root at `rootPath`.
    package func addSigningKey(rootPath: String, publicKeyFile: String?, now: Date = Date()) throws(ContentKeysError) -> (
        keyId: String, version: Int
    ) {
        let root = try readRoot(rootPath)
        var keys = try folder.readKeys().body
        let added: TrustPublicKey
        do throws(TrustFailure) {
            if let publicKeyFile {
                added = try TrustKeyFile.readPublicKey(at: publicKeyFile)
            } else {
                let signing = TrustPrivateKey()
                try TrustKeyFile.writePrivateKey(signing, to: folder.signingKey(signing.keyId).path)
                added = signing.publicKey
            }
        } catch {
            throw .trust(error)
        }
        guard !keys.signingKeys.contains(where: { $0.key == added }), !keys.isRevoked(added.keyId) else {
            throw .trust(.malformed(what: "signing key", reason: "\(added.keyId) is in the keys document already"))
        }
        keys.signingKeys.append(KeyEntry(key: added, since: now))
        let version = try renew(&keys, by: root, now: now)
        return (added.keyId, version)
    }

    /// Moves the signing key `keyId` to `revoked` in a new keys document version and deletes its
    /// private key from `signing/` if it is there.
    package func revoke(keyId: String, rootPath: String, reason: String, now: Date = Date()) throws(ContentKeysError) -> Int {
        let root = try readRoot(rootPath)
        var keys = try folder.readKeys().body
        guard let index = keys.signingKeys.firstIndex(where: { $0.key.keyId == keyId }) else { throw .unknownKey(keyId) }
        keys.signingKeys.remove(at: index)
        keys.revoked.append(RevokedKey(keyId: keyId, revokedAt: now, reason: reason))
        let version = try renew(&keys, by: root, now: now)
        unlink(folder.signingKey(keyId).path)
        return version
    }

    /// What `keys status` reports.
    package struct Status: Sendable {
        package var keys: KeysDocument
        /// The ids of the signing keys whose private key is in `signing/`.
        package var onlineKeyIds: Set<String>
        /// Manifests in `manifests/` and bodies waiting in `unsigned/`.
        package var signedManifests: Int
        package var awaitingSignature: Int

        /// The report as JSON: ids, times and counts, never a key's bytes.
        package var json: JSONValue {
            [
                "version": .int(keys.version),
                "created": .string(TrustTime.format(keys.created)),
                "expires": .string(TrustTime.format(keys.expires)),
                "root": .string(keys.root.keyId),
                "signingKeys": .array(
                    keys.signingKeys.map { entry in
                        [
                            "keyId": .string(entry.key.keyId), "since": .string(TrustTime.format(entry.since)),
                            "online": .bool(onlineKeyIds.contains(entry.key.keyId)),
                        ]
                    }),
                "revoked": .array(
                    keys.revoked.map { entry in
                        [
                            "keyId": .string(entry.keyId), "revokedAt": .string(TrustTime.format(entry.revokedAt)),
                            "reason": .string(entry.reason),
                        ]
                    }),
                "manifests": ["signed": .int(signedManifests), "awaitingSignature": .int(awaitingSignature)],
            ]
        }
    }

    /// The keys document's version, expiry and keys, and the manifests by state.
    package func status() throws(ContentKeysError) -> Status {
        let keys = try folder.readKeys().body
        func count(_ url: URL) -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".json") }.count
        }
        return Status(
            keys: keys, onlineKeyIds: folder.onlineKeyIds(), signedManifests: count(folder.manifests),
            awaitingSignature: count(folder.unsigned))
    }

    /// The root private key at `path`, refused unless it is the key `root.pub.json` names.
    private func readRoot(_ path: String) throws(ContentKeysError) -> TrustPrivateKey {
        guard folder.signs else { throw .notInitialised(folder.keysDocument.path) }
        do {
            let root = try TrustKeyFile.readPrivateKey(at: path)
            let pinned = try TrustKeyFile.readPublicKey(at: folder.rootPublicKey.path)
            guard root.publicKey == pinned else { throw ContentKeysError.wrongRoot(path: path, expected: pinned.keyId, given: root.keyId) }
            return root
        } catch let error as ContentKeysError {
            throw error
        } catch let error as TrustFailure {
            throw .trust(error)
        } catch {
            throw .trust(.keyFileUnusable(path: path, reason: "\(error)"))
        }
    }

    /// Bumps `keys`' version, renews its times and writes it signed by `root`; returns the version.
    private func renew(_ keys: inout KeysDocument, by root: TrustPrivateKey, now: Date) throws(ContentKeysError) -> Int {
        keys.version += 1
        keys.created = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        keys.expires = keys.created.addingTimeInterval(Self.keysLifetime)
        do throws(TrustFailure) {
            try write(keys, signedBy: root)
        } catch {
            throw .trust(error)
        }
        return keys.version
    }

    private func write(_ keys: KeysDocument, signedBy root: TrustPrivateKey) throws(TrustFailure) {
        let document = try SignedKeysDocument(body: keys).signed(with: root, context: .keys)
        try TrustFileIO.replace(try document.encoded(), at: folder.keysDocument.path, mode: 0o644)
    }
}
