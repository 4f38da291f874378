import Foundation
import Logging
import StoryBridge

/// Builds, signs, re-signs and stores the manifests of the published packages beside them
/// (docs/design/TRUST.md 1.2 and 1.7), in `content-server/trust/manifests/<packageId>-r<rev>.json`.
///
/// Signing is on when the trust folder holds a keys document. With an online signing key (one of
/// the document's valid signing keys whose private key is in `signing/`) a manifest is signed as the
/// package is built; without one (offline signing) its body is written to `unsigned/` for
/// `keys sign`, and the manifest route answers 503 until a signed file appears in `manifests/`.
/// A manifest file is served only after its signature verifies against the current keys document,
/// so a wrongly signed file dropped there is refused (and logged), never served.
actor ManifestPublisher {
    /// What the manifest route can answer for a package revision.
    enum Availability: Sendable, Equatable {
        /// This server signs nothing (no keys document).
        case unsigned
        /// The signed manifest's bytes, verified against the current keys document.
        case signed(Data)
        /// Offline signing: the body waits for `keys sign`.
        case awaitingSignature
        /// No manifest of that package revision is known (yet).
        case missing
    }

    nonisolated let folder: ContentTrustFolder
    /// The lifetime of a manifest: `expires - created`.
    nonisolated let lifetime: TimeInterval
    private let clock: any HostClock
    private let logger: Logger
    /// Manifest file → when the refusal of its signature was last logged (once per file and day).
    private var refusalsLogged: [String: Date] = [:]
    /// Manifest file → bytes known to verify, with the keys document's bytes they verified under
    /// (kept when this server signs them, or after a request verified them): a request whose
    /// file and keys document read back byte for byte the same is answered without parsing and
    /// verifying them again. A kiosk asks for the manifest during its delta update, whose other
    /// requests this server answers at the same time, and a fleet asks for the same one many times.
    private var verified: [String: (manifest: Data, keys: Data)] = [:]

    init(folder: ContentTrustFolder, lifetime: TimeInterval, clock: any HostClock, logger: Logger) {
        self.folder = folder
        self.lifetime = lifetime
        self.clock = clock
        self.logger = logger
    }

    /// Whether this server signs (its keys document exists).
    nonisolated var signs: Bool { folder.signs }

    /// The file of `package`'s manifest (signed) or its body (awaiting a signature).
    nonisolated func manifestFile(packageId: Int, revision: Int) -> URL {
        folder.manifests.appendingPathComponent("\(packageId)-r\(revision).json")
    }

    nonisolated func unsignedFile(packageId: Int, revision: Int) -> URL {
        folder.unsigned.appendingPathComponent("\(packageId)-r\(revision).json")
    }

    /// Builds `package`'s manifest from `presentation`'s installed folder (the files a kiosk's tree
    /// will hold: the package's entries and, under `mediafiles/`, the presentation's media files
    /// whether they travel in the package or not) and signs it, or leaves the body for `keys sign`.
    /// Does nothing when the server signs nothing.
    func publish(_ package: PublishedPackage, presentation: Presentation) async throws(TrustFailure) {
        guard signs else { return }
        let files = try await TreeHasher().hash(tree: presentation.root)
        let mediaIds = Dictionary(
            presentation.mediaFiles.map {
                ("mediafiles/\($0.fileName)", StableIdentifier.make("media", presentationId: presentation.id, name: $0.fileName))
            },
            uniquingKeysWith: { first, _ in first })
        let listed = files.map { file in
            ManifestFile(path: file.path, size: file.size, sha256: file.sha256, mediaFileId: mediaIds[file.path])
        }
        let now = clock.now
        let keys = try folder.readKeysForSigning()
        let body = PackageManifest(
            presentationId: presentation.id, presentationRevision: presentation.revision, packageId: package.id,
            packageRevision: package.revision, created: now, expires: now.addingTimeInterval(lifetime), keysVersion: keys.body.version,
            files: listed)
        try write(body, keys: keys)
    }

    /// Re-signs each stored manifest whose remaining time is under a third of its lifetime, or whose
    /// signature no longer verifies under the current keys document (its key revoked), or writes its
    /// body to `unsigned/` with offline signing: same files and revisions, new `created`/`expires`,
    /// the current keys version and signing key. Returns the files re-signed.
    @discardableResult
    func resignDue() throws(TrustFailure) -> [String] {
        guard signs else { return [] }
        let keys = try folder.readKeysForSigning()
        let now = clock.now
        var renewed: [String] = []
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.manifests.path)) ?? []).filter { $0.hasSuffix(".json") }
        for name in names.sorted() {
            let file = folder.manifests.appendingPathComponent(name)
            guard let (bytes, _) = try? TrustFileIO.read(file.path), let document = try? SignedManifest.parse(bytes),
                let expires = document.body.expires
            else { continue }
            let total = expires.timeIntervalSince(document.body.created)
            // A manifest whose key was revoked (or removed) since is re-signed whatever its age.
            let verifies = (try? document.verify(keys: keys.body)) != nil
            guard !verifies || expires.timeIntervalSince(now) < total / 3 else { continue }
            var body = document.body
            body.created = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            body.expires = body.created.addingTimeInterval(lifetime)
            body.keysVersion = keys.body.version
            try write(body, keys: keys)
            renewed.append(name)
        }
        return renewed
    }

    /// What the manifest route answers for package `packageId` revision `revision`; a manifest
    /// known to verify is answered without verifying it again while neither its file nor the keys
    /// document changed by a byte.
    func availability(packageId: Int, revision: Int) -> Availability {
        guard signs else { return .unsigned }
        let file = manifestFile(packageId: packageId, revision: revision)
        let keysBytes = try? TrustFileIO.read(folder.keysDocument.path).bytes
        if let (bytes, _) = try? TrustFileIO.read(file.path) {
            if let held = verified[file.path], held.manifest == bytes, let keysBytes, held.keys == keysBytes {
                return .signed(bytes)
            }
            verified[file.path] = nil
            do throws(TrustFailure) {
                // The keys document read above, when there is one (else the read's own error).
                let keys: SignedKeysDocument
                if let keysBytes { keys = try SignedKeysDocument.parse(keysBytes) } else { keys = try folder.readKeysForSigning() }
                let document = try SignedManifest.parse(bytes)
                guard document.body.packageId == packageId, document.body.packageRevision == revision else {
                    throw .malformed(
                        what: "manifest",
                        reason: "it is the manifest of package \(document.body.packageId) revision \(document.body.packageRevision)")
                }
                try document.verify(keys: keys.body)
                if let keysBytes { verified[file.path] = (bytes, keysBytes) }
                return .signed(bytes)
            } catch {
                logRefusal(file, error)
            }
        }
        if FileManager.default.fileExists(atPath: unsignedFile(packageId: packageId, revision: revision).path) {
            return .awaitingSignature
        }
        return .missing
    }

    private func logRefusal(_ file: URL, _ error: TrustFailure) {
        let now = clock.now
        if let last = refusalsLogged[file.path], now.timeIntervalSince(last) < 86_400 { return }
        refusalsLogged[file.path] = now
        logger.error("refusing to serve \(file.path): \(error)")
    }

    /// Signs `body` with an online signing key into `manifests/`, or writes it to `unsigned/`.
    private func write(_ body: PackageManifest, keys: SignedKeysDocument) throws(TrustFailure) {
        let name = "\(body.packageId)-r\(body.packageRevision).json"
        if let key = folder.onlineSigningKey(in: keys.body) {
            try TrustFileIO.makePrivateFolder(folder.manifests.path)
            let document = try SignedManifest(body: body).signed(with: key, context: .manifest)
            let bytes = try document.encoded()
            let file = folder.manifests.appendingPathComponent(name).path
            try TrustFileIO.replace(bytes, at: file)
            // Signed here under these keys: known to verify while the keys document is the one read.
            if let keysBytes = try? TrustFileIO.read(folder.keysDocument.path).bytes,
                (try? SignedKeysDocument.parse(keysBytes))?.body == keys.body
            {
                verified[file] = (bytes, keysBytes)
            }
            try? FileManager.default.removeItem(at: folder.unsigned.appendingPathComponent(name))
            logger.info("signed the manifest of package \(body.packageId) revision \(body.packageRevision) with key \(key.keyId)")
        } else {
            try TrustFileIO.makePrivateFolder(folder.unsigned.path)
            try TrustFileIO.replace(try SignedManifest(body: body).encoded(), at: folder.unsigned.appendingPathComponent(name).path)
            logger.warning(
                "the manifest of package \(body.packageId) revision \(body.packageRevision) awaits its signature (expires \(TrustTime.format(body.expires ?? body.created))); run `storybridge content-server keys sign`"
            )
        }
    }
}

extension ContentTrustFolder {
    /// The keys document, for signing under it.
    func readKeysForSigning() throws(TrustFailure) -> SignedKeysDocument {
        do throws(ContentKeysError) {
            return try readKeys()
        } catch {
            if case .trust(let failure) = error { throw failure }
            throw .malformed(what: "keys document", reason: error.description)
        }
    }

    /// The first valid signing key of `keys` whose private key is in `signing/`, if any.
    func onlineSigningKey(in keys: KeysDocument) -> TrustPrivateKey? {
        for key in keys.validSigningKeys {
            if let privateKey = try? TrustKeyFile.readPrivateKey(at: signingKey(key.keyId).path), privateKey.publicKey == key {
                return privateKey
            }
        }
        return nil
    }
}
