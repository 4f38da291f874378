import Foundation
import GRDB

/// Why `storybridge verify` could not check a deck.
package enum DeckVerifyError: Error, Sendable, CustomStringConvertible {
    /// No presentation with this id is installed (exit 66).
    case notInstalled(Int)
    /// `--release` of a deck whose files still differ (exit 65).
    case stillDiffers(id: Int, TreeDifference)
    /// A file could not be read or the library not written (exit 74).
    case storage(String)

    package var description: String {
        switch self {
        case .notInstalled(let id): "no presentation with id \(id) is installed"
        case .stillDiffers(let id, let difference):
            "presentation \(id) stays quarantined: its files still differ from its manifest (\(difference))"
        case .storage(let reason): "library storage failed: \(reason)"
        }
    }

    /// sysexits: 66 not installed, 65 still differs, 74 storage.
    package var exitStatus: Int32 {
        switch self {
        case .notInstalled: 66
        case .stillDiffers: 65
        case .storage: 74
        }
    }
}

/// Re-hashes an installed deck's tree against its `packageTrust` record, ignoring every shortcut
/// (docs/design/TRUST.md 3.1): each file read once more with ``TreeHasher``. A signed record's
/// signature is checked again against the held keys document. A deck whose files differ (or whose
/// stored manifest no longer verifies) is quarantined in its row; a deck with no row is hashed and
/// recorded as unsigned. Each check's time and result are written to the row.
package struct DeckVerifier: Sendable {
    package var library: LibraryStore
    /// The held keys document (nil when no root is pinned): signatures are checked against it.
    package var keys: KeysDocument?
    package var hasher: TreeHasher

    package init(library: LibraryStore, keys: KeysDocument?, hasher: TreeHasher = TreeHasher()) {
        self.library = library
        self.keys = keys
        self.hasher = hasher
    }

    /// How the tree of `folder` (under `presentations/`) differs from its `packageTrust` record,
    /// hashed on the calling thread; `nil` when the folder has no record (nothing to check it
    /// against). For `rollback`, which checks the kept revision it is about to serve (a folder a
    /// repair replaced while quarantined still differs, and is refused).
    package static func check(folder: String, in library: LibraryStore) throws -> TreeDifference? {
        guard let record = try library.database.pool.read({ db in try InstalledTrust.read(db, folder: folder) }) else { return nil }
        let manifest = try SignedManifest.parse(Data(record.manifest.utf8)).body
        let difference: TreeDifference
        do throws(TrustFailure) {
            difference = TreeHasher.difference(
                of: try TreeHasher().hashSync(tree: library.directory.presentations.appendingPathComponent(folder)), from: manifest)
        } catch {
            guard case .unexpectedEntry(let path, _) = error else { throw error }
            difference = TreeDifference(added: [path])
        }
        return difference
    }

    /// The installed presentations' ids, in the library's order.
    package func installedIds() async throws(DeckVerifyError) -> [Int] {
        try await read { db in try Int.fetchAll(db, sql: "SELECT id FROM presentation ORDER BY sortOrder, id") }
    }

    /// Checks the served revision of presentation `id` and records what was found.
    package func verify(id: Int, now: Date = Date()) async throws(DeckVerifyError) -> DeckVerification {
        let began = ContinuousClock.now
        let installed = try await read { db -> (Int, String, InstalledTrust?, packageId: Int?, packageRevision: Int?)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT revision, folder FROM presentation WHERE id = ?", arguments: [id]) else {
                return nil
            }
            let folder: String = row["folder"]
            let synced = try Row.fetchOne(
                db, sql: "SELECT installedPackageId, installedRevision FROM syncPresentation WHERE id = ?", arguments: [id])
            return (
                row["revision"], folder, try InstalledTrust.read(db, folder: folder), synced?["installedPackageId"],
                synced?["installedRevision"]
            )
        }
        guard let installed else { throw .notInstalled(id) }
        let (revision, folder, record, packageId, packageRevision) = installed
        let root = library.directory.presentations.appendingPathComponent(folder)
        var difference = TreeDifference()
        var files: [ManifestFile] = []
        do throws(TrustFailure) {
            files = try await hasher.hash(tree: root)
        } catch {
            switch error {
            case .unexpectedEntry(let path, _): difference.added.append(path)
            default: throw .storage(error.description)
            }
        }
        let seconds: () -> Double = {
            let elapsed = (ContinuousClock.now - began).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
        guard let record else {
            // No record: the first hashes, recorded as an unsigned install's (rule U3).
            guard difference.isEmpty else { throw .storage("presentation \(id): \(difference)") }
            let local: TrustRecord
            do throws(TrustFailure) {
                local = try TrustRecord.unsigned(
                    presentationId: id, presentationRevision: revision, packageId: packageId ?? 0,
                    packageRevision: packageRevision ?? 0, files: files,
                    now: now)
            } catch {
                throw .storage(error.description)
            }
            try await write { db in try local.write(db, folder: folder, now: now) }
            return DeckVerification(
                id: id, revision: revision, folder: folder, signed: false, keyId: nil, expires: nil, manifestHash: local.manifestHash,
                difference: difference, outcome: .firstHashes, quarantined: false, seconds: seconds())
        }
        var outcome = DeckVerification.Outcome.ok
        do throws(TrustFailure) {
            let document = try SignedManifest.parse(Data(record.manifest.utf8))
            if difference.isEmpty { difference = TreeHasher.difference(of: files, from: document.body) }
            if record.signed, let keys {
                do throws(TrustFailure) {
                    try document.verify(keys: keys)
                } catch {
                    if case .keyRevoked = error { outcome = .revokedKey } else { outcome = .badSignature }
                }
            }
        } catch {
            outcome = .badSignature
        }
        if !difference.isEmpty { outcome = .differs }
        let quarantine: String? =
            switch outcome {
            case .differs: DeckVerification.reason(difference)
            case .badSignature: "the stored manifest's signature does not verify under the held keys document"
            case .ok, .revokedKey, .firstHashes: nil
            }
        let result = quarantine.map { "differs: \($0)" } ?? outcome.rawValue
        try await write { db in
            try db.execute(
                sql: "UPDATE packageTrust SET lastVerifiedAt = ?, lastVerifyResult = ? WHERE folder = ?",
                arguments: [TrustTime.format(now), result, folder])
            if let quarantine {
                try db.execute(
                    sql: """
                        UPDATE packageTrust SET state = 'quarantined', quarantineReason = ?,
                          quarantinedAt = COALESCE(quarantinedAt, ?) WHERE folder = ?
                        """,
                    arguments: [quarantine, TrustTime.format(now), folder])
            }
        }
        return DeckVerification(
            id: id, revision: revision, folder: folder, signed: record.signed, keyId: record.keyId, expires: record.expires,
            manifestHash: record.manifestHash, difference: difference, outcome: outcome,
            quarantined: quarantine != nil || record.state == "quarantined", seconds: seconds())
    }

    /// Clears the quarantine of presentation `id` after its files were restored: verifies first and
    /// refuses while they still differ.
    package func release(id: Int, now: Date = Date()) async throws(DeckVerifyError) -> DeckVerification {
        var checked = try await verify(id: id, now: now)
        guard !checked.outcome.fails else { throw .stillDiffers(id: id, checked.difference) }
        let folder = checked.folder
        try await write { db in
            try db.execute(
                sql: "UPDATE packageTrust SET state = 'verified', quarantinedAt = NULL, quarantineReason = NULL WHERE folder = ?",
                arguments: [folder])
        }
        checked.quarantined = false
        return checked
    }

    private func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws(DeckVerifyError) -> Value {
        let database = library.database
        let result = await BlockingIO.run { Result { try database.pool.read(body) } }
        do {
            return try result.get()
        } catch {
            throw .storage(String(describing: error))
        }
    }

    private func write(_ body: @escaping @Sendable (Database) throws -> Void) async throws(DeckVerifyError) {
        let database = library.database
        let result = await BlockingIO.run { Result { try database.pool.write(body) } }
        do {
            try result.get()
        } catch {
            throw .storage(String(describing: error))
        }
    }
}
