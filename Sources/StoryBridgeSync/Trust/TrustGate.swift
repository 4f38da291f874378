import Foundation
import Logging
import StoryBridge

/// What a kiosk's sync requires of packages: the config's `trust.rootFile` and whether unsigned
/// packages are refused (`sync --require-signed`, config `trust.requireSigned`).
package struct TrustPolicy: Sendable, Hashable {
    package var rootFile: String?
    package var requireSigned: Bool

    package init(rootFile: String? = nil, requireSigned: Bool = false) {
        self.rootFile = rootFile
        self.requireSigned = requireSigned
    }
}

/// Judges each package a sync is about to install against the signed manifest its service
/// offers, in the order of docs/design/TRUST.md 2.4: root pinned (1), keys document (2, once per
/// run), manifest signature (3), identity (4), expiry (5), no going back (6); the files (7) are
/// checked by ``verifier(_:)`` once the new revision's folder is assembled, before it is served.
/// A package without a manifest is refused after a signed one (U1) or with `--require-signed`
/// (U2), else installed with its files' hashes recorded (U3).
package actor TrustGate {
    /// What the tree of a package must be.
    package enum Expectation: Sendable {
        /// The files of this verified manifest (its text as received, the key that signed it, and
        /// its hash and file positions: worked out with the manifest, beside a delta's fetch, not
        /// in the tree's check).
        case signed(SignedManifest, text: String, keyId: String, manifestHash: String, paths: ManifestPaths)
        /// Unsigned: any tree, whose hashes are recorded.
        case unsigned
    }

    private let store: KioskTrustStore
    private let api: ContentAPIClient
    private let database: StoryBridgeDatabase
    private let policy: TrustPolicy
    private let limits: PackageLimits
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// Rule 2's preparation, started by the first ``prepare()`` of the run.
    private var preparation: Task<Void, Never>?
    private var root: TrustPublicKey?
    private var keys: KeysDocument?
    /// Why the keys document of this run was refused: every signed package of the run fails with it.
    private var keysRefusal: String?
    private var noticedUnpinned = false

    package init(
        store: KioskTrustStore, api: ContentAPIClient, database: StoryBridgeDatabase, policy: TrustPolicy, limits: PackageLimits,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.api = api
        self.database = database
        self.policy = policy
        self.limits = limits
        self.logger = logger
        self.now = now
    }

    /// What `package` of `row` must install as; refuses it by the first rule it breaks.
    func expectation(row: SyncedPresentation, package: RemoteContentPackage) async throws(SyncError) -> Expectation {
        let id = row.id
        let keysBegan = PhaseTiming.begin()
        await prepare()
        PhaseTiming.record("trust: keys document ready", since: keysBegan)
        guard let link = package.manifest else { return try await unsigned(id) }
        guard let root else {
            if !noticedUnpinned {
                noticedUnpinned = true
                logger.notice("the service signs its packages; pin its root with `storybridge trust add`")
            }
            return try await unsigned(id)
        }
        if let keysRefusal { throw .trustRefused(presentationId: id, .keysRefused(keysRefusal)) }
        guard let keys else {
            throw .trustRefused(presentationId: id, .keysRefused("no keys document signed by root \(root.keyId) is held"))
        }
        let (document, bytes, signer, manifestHash) = try await verifiedManifest(link: link, keys: keys, presentationId: id)
        let body = document.body
        // Rule 4: the manifest of this package revision, of the revision the catalog fetched.
        let presentationRevision = row.fetchedRevision ?? row.listedRevision
        guard body.presentationId == id, body.packageId == package.id, body.packageRevision == package.revision,
            body.presentationRevision == presentationRevision
        else {
            throw .trustRefused(
                presentationId: id,
                .identityMismatch(
                    "the manifest names presentation \(body.presentationId) revision \(body.presentationRevision), package \(body.packageId) revision \(body.packageRevision); the service offers presentation \(id) revision \(presentationRevision), package \(package.id) revision \(package.revision)"
                ))
        }
        try checkExpiry(body, presentationId: id)
        // Rule 6: never back to an older signed revision.
        let markBegan = PhaseTiming.begin()
        let highWaterMark = try await highWater(id)
        PhaseTiming.record("trust: high-water mark read", since: markBegan)
        if let mark = highWaterMark {
            if body.presentationRevision < mark.presentationRevision {
                throw .trustRefused(
                    presentationId: id,
                    .wentBack(
                        "presentation revision \(body.presentationRevision) is older than revision \(mark.presentationRevision) installed signed"
                    ))
            }
            if let packageId = mark.packageId, let packageRevision = mark.packageRevision {
                if body.packageId == packageId, body.packageRevision < packageRevision {
                    throw .trustRefused(
                        presentationId: id,
                        .wentBack(
                            "package \(packageId) revision \(body.packageRevision) is older than revision \(packageRevision) installed signed"
                        ))
                }
                if body.packageId != packageId, body.presentationRevision <= mark.presentationRevision {
                    throw .trustRefused(
                        presentationId: id,
                        .wentBack("package \(body.packageId) replaces package \(packageId) without a newer presentation revision"))
                }
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        await storeManifest(text, hash: manifestHash, presentationId: id)
        return .signed(document, text: text, keyId: signer.keyId, manifestHash: manifestHash, paths: ManifestPaths(body))
    }

    /// A re-signed manifest of the installed revision `installed` (docs/design/TRUST.md 2.6): the
    /// manifest `package` links to, when it is valid (rules 2 to 5), names the installed revisions,
    /// lists the same files and was made later than the stored one. `nil` when there is nothing to
    /// take (no link, no root pinned, the same manifest, another revision); a throw when the offered
    /// manifest is refused (the stored one stays).
    func refreshed(installed: InstalledTrust, package: RemoteContentPackage) async throws(SyncError) -> TrustRecord? {
        let id = installed.presentationId
        await prepare()
        guard let link = package.manifest, root != nil else { return nil }
        if let keysRefusal { throw .trustRefused(presentationId: id, .keysRefused(keysRefusal)) }
        guard let keys else { return nil }
        let (document, bytes, signer, manifestHash) = try await verifiedManifest(link: link, keys: keys, presentationId: id)
        let body = document.body
        guard body.presentationId == id, body.packageId == installed.packageId, body.packageRevision == installed.packageRevision,
            body.presentationRevision == installed.presentationRevision
        else { return nil }
        try checkExpiry(body, presentationId: id)
        guard let storedCreated = installed.created, body.created > storedCreated else { return nil }
        let stored: SignedManifest
        do throws(TrustFailure) {
            stored = try SignedManifest.parse(Data(installed.manifest.utf8))
        } catch {
            throw .trustRefused(presentationId: id, error)
        }
        guard stored.body.files == body.files else {
            throw .trustRefused(
                presentationId: id,
                .identityMismatch(
                    "a manifest of the installed package \(body.packageId) revision \(body.packageRevision) lists other files than the one it was installed with"
                ))
        }
        return TrustRecord(
            presentationId: id, signed: true, manifestHash: manifestHash, manifest: String(decoding: bytes, as: UTF8.self),
            keyId: signer.keyId, body: body)
    }

    /// Rule 3: the manifest at `link`, fetched with the access token (refused above the size the
    /// package limits allow), signed by a valid signing key of `keys`.
    private func verifiedManifest(
        link: String, keys: KeysDocument, presentationId id: Int
    ) async throws(SyncError) -> (SignedManifest, Data, TrustPublicKey, hash: String) {
        let limit = limits.maxEntries * 512
        let requestBegan = PhaseTiming.begin()
        let bytes = try await api.manifest(link: link, limit: limit)
        PhaseTiming.record("trust: manifest requested", since: requestBegan)
        do throws(TrustFailure) {
            return try PhaseTiming.measure("trust: manifest parsed and its signature checked") { () throws(TrustFailure) in
                let document = try SignedManifest.parse(bytes)
                if let version = document.body.keysVersion, version > keys.version {
                    throw .keysVersionAhead(signed: version, held: keys.version)
                }
                // One canonical encoding for the signature and the manifest's hash.
                let canonical = try document.canonicalSigned
                let signer = try document.verify(keys: keys, canonical: canonical)
                return (document, bytes, signer, SignedManifest.hash(canonical: canonical))
            }
        } catch {
            throw .trustRefused(presentationId: id, error)
        }
    }

    /// Stores a verified manifest's text under its hash now, beside the package's fetch, so that
    /// the install's swap transaction writes only the row that names it (docs/design/TRUST.md
    /// 2.7). A failure is only logged: the swap then stores the text itself. A text whose install
    /// fails is swept by the next sync.
    private func storeManifest(_ text: String, hash: String, presentationId id: Int) async {
        let database = self.database
        let began = PhaseTiming.begin()
        let stored = await BlockingIO.run {
            Result {
                try database.pool.write { db in try TrustRecord.storeManifest(db, text: text, hash: hash) }
            }
        }
        PhaseTiming.record("trust: manifest stored (beside the fetch)", since: began)
        if case .failure(let error) = stored {
            logger.notice("the manifest is stored with the install instead", metadata: ["presentation": "\(id)", "error": "\(error)"])
        }
    }

    /// Rule 5: not from the future (5 minutes of clock skew), not expired.
    private func checkExpiry(_ body: PackageManifest, presentationId id: Int) throws(SyncError) {
        let now = now()
        guard body.created <= now.addingTimeInterval(300) else {
            throw .trustRefused(presentationId: id, .manifestFromTheFuture(presentationId: id, created: TrustTime.format(body.created)))
        }
        if let expires = body.expires, now >= expires {
            throw .trustRefused(presentationId: id, .manifestExpired(presentationId: id, expires: TrustTime.format(expires)))
        }
    }

    /// Rules U1 and U2; U3 otherwise.
    private func unsigned(_ id: Int) async throws(SyncError) -> Expectation {
        if let since = try await highWater(id)?.signedSince {
            throw .trustRefused(presentationId: id, .unsignedAfterSigned(presentationId: id, since: since))
        }
        if policy.requireSigned { throw .trustRefused(presentationId: id, .unsignedRefused(presentationId: id)) }
        return .unsigned
    }

    private func highWater(_ id: Int) async throws(SyncError) -> TrustHighWater? {
        let database = self.database
        let result = await BlockingIO.run {
            Result { try database.pool.read { db in try TrustHighWater.read(db, presentationId: id) } }
        }
        do {
            return try result.get()
        } catch {
            throw SyncCatalog.storageError(error)
        }
    }

    /// Rule 2, once per run: the pinned root, the held keys document and the service's, which
    /// replaces the held one when it is valid and newer. The content sync starts it as soon as it
    /// knows it will fetch a package, so that the keys document arrives while the package's own
    /// requests are made; every caller waits for the one preparation.
    package func prepare() async {
        if let preparation { return await preparation.value }
        let started = Task { await self.prepareOnce() }
        preparation = started
        await started.value
    }

    private func prepareOnce() async {
        do {
            root = try store.pinnedRoot()
        } catch {
            keysRefusal = "the pinned root cannot be read: \(error)"
            return
        }
        guard let root else { return }
        var held: SignedKeysDocument?
        do {
            held = try store.heldKeys(root: root)
        } catch {
            logger.warning("the held keys document is unusable; fetching the service's", metadata: ["error": "\(error)"])
        }
        keys = held?.body
        let offeredBytes: Data?
        do {
            offeredBytes = try await api.trustKeys()
        } catch {
            logger.notice("cannot fetch the service's keys document; keeping the held one", metadata: ["error": "\(error)"])
            return
        }
        guard let offeredBytes else { return }
        do throws(TrustFailure) {
            let offered = try SignedKeysDocument.parse(offeredBytes)
            try offered.verify(pinnedRoot: root)
            if let held {
                guard offered.body.version >= held.body.version else {
                    throw .keysRefused(
                        "the service's keys document is version \(offered.body.version), older than the held version \(held.body.version)")
                }
                if offered.body.version == held.body.version, try offered.canonicalSigned != held.canonicalSigned {
                    throw .keysRefused(
                        "the service's keys document version \(offered.body.version) differs from the held one of the same version")
                }
            }
            guard now() < offered.body.expires else {
                throw .keysRefused("the service's keys document expired on \(TrustTime.format(offered.body.expires))")
            }
            if held?.body.version != offered.body.version { try store.hold(offered) }
            keys = offered.body
        } catch {
            keysRefusal = error.description
            logger.error("keys document refused; signed packages are refused this run", metadata: ["error": "\(error)"])
        }
    }

    /// The check of rule 7 and the record the install writes: the assembled tree hashed and, for a
    /// signed manifest, compared with it (a throw removes the staging folder; the served revision
    /// stays); for an unsigned package, its hashes recorded. A file of `vouched` whose facts in
    /// the staging folder are still those it had when the delta linked it is not read: it has the
    /// installed record's hash. A delta update gives the files it placed (`assembled`), which
    /// are then listed without walking the folder. The check's second argument is what the
    /// assembly hashed as it wrote (``LibraryStore/AssembledFolder/hashed``: the unpacked files of
    /// a full download, the changed files a delta placed as unpacked): each is not read either
    /// while its facts still hold; it has the hash of the bytes written. When the tree passes and `factsAfterSwap` is
    /// given, its verified facts (`package-index/<folder>.verified`) are handed to it, for the
    /// sync to write once the swap has committed.
    package nonisolated static func verifier(
        _ expectation: Expectation, presentationId: Int, presentationRevision: Int, packageId: Int, packageRevision: Int,
        vouched: [String: HashedFile] = [:], assembled: AssembledTree? = nil, factsAfterSwap: VerifiedFactsAfterSwap? = nil
    ) -> @Sendable (_ staging: URL, _ hashedByAssembly: [String: HashedFile]) throws -> TrustRecord {
        { staging, hashedByAssembly in
            // `lstat` of each file before any is read: a change while hashing moves its change
            // time, and the facts then no longer hold for the next delta.
            let listing = try PhaseTiming.measure("trust: tree listed") {
                if let assembled { return try assembled.listing(in: staging) }
                return try TreeHasher.factsListing(of: staging)
            }
            var files: [ManifestFile] = []
            files.reserveCapacity(listing.count)
            var toHash: [String] = []
            for (path, facts) in listing {
                if let known = vouched[path] ?? hashedByAssembly[path], known.facts == facts {
                    files.append(ManifestFile(path: path, size: facts.size, sha256: known.sha256))
                } else {
                    toHash.append(path)
                }
            }
            if !toHash.isEmpty {
                try PhaseTiming.measure("trust: files not vouched for hashed") {
                    files += try TreeHasher().hashSync(files: toHash, in: staging)
                }
            }
            let record: TrustRecord
            switch expectation {
            case .signed(let document, let text, let keyId, let manifestHash, let paths):
                let difference = PhaseTiming.measure("trust: tree compared with the manifest") {
                    TreeHasher.difference(of: files, from: document.body, paths: paths)
                }
                guard difference.isEmpty else { throw TrustFailure.treeDiffers(difference) }
                record = TrustRecord(
                    presentationId: presentationId, signed: true, manifestHash: manifestHash, manifest: text, keyId: keyId,
                    body: document.body)
            case .unsigned:
                files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
                record = try TrustRecord.unsigned(
                    presentationId: presentationId, presentationRevision: presentationRevision, packageId: packageId,
                    packageRevision: packageRevision, files: files, now: Date())
            }
            // Each file's hash is the one the tree was just checked against (hashed, or vouched);
            // the facts are made of them after the swap, outside the update's waited-for time.
            factsAfterSwap?.hold(
                listing: listing, files: files, manifestHash: record.manifestHash, forFolder: staging.lastPathComponent)
            return record
        }
    }

    /// The reused files of a delta that the installed revision's verified facts vouch for: each
    /// of `reused` whose facts at the moment the delta linked it (`linked`, before and after its
    /// link) equal the stored `facts`, when those were taken against the installed revision's
    /// verified trust record (`installedManifestHash`, the hash of the manifest that record
    /// holds, read with ``InstalledTrust/verifiedManifestHash(_:folder:)``). A vouched file has the
    /// hash the facts carry, the one that manifest lists for it.
    nonisolated static func vouched(
        reused: [String], linked: [String: LinkedFacts], facts: VerifiedFacts?, installedManifestHash: String?
    ) -> [String: HashedFile] {
        guard let facts, let installedManifestHash, installedManifestHash == facts.manifestHash else { return [:] }
        var vouched: [String: HashedFile] = [:]
        for name in reused {
            guard let link = linked[name], let expected = facts.files[name], link.before == expected.facts else { continue }
            vouched[name] = HashedFile(sha256: expected.sha256, facts: link.after)
        }
        return vouched
    }
}

/// A reused file's facts when a delta linked it: just before its link (compared with the
/// installed revision's verified facts) and just after (what the staging folder must still show
/// when it is verified; equal to `before` when the file came in a ready tree, linked earlier).
struct LinkedFacts: Sendable, Hashable {
    var before: FileFacts
    var after: FileFacts
}
