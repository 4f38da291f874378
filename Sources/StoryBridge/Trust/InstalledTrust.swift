import Foundation
import GRDB

/// The `packageTrust` row of an installed or kept revision's folder, as stored: what its files
/// were checked against, and whether `verify` quarantined it (docs/design/TRUST.md 2.7).
package struct InstalledTrust: Sendable, Hashable {
    package var folder: String
    package var presentationId: Int
    /// A signed manifest (true) or the hashes recorded at an unsigned install (false).
    package var signed: Bool
    package var manifestHash: String
    /// The whole document as received (or the local body).
    package var manifest: String
    package var keyId: String?
    package var presentationRevision: Int?
    package var packageId: Int?
    package var packageRevision: Int?
    package var created: Date?
    package var expires: Date?
    /// `verified` or `quarantined`.
    package var state: String
    package var quarantineReason: String?
    package var lastVerifiedAt: Date?
    /// `ok`, or what the last check found.
    package var lastVerifyResult: String?

    init(row: Row) {
        folder = row["folder"]
        presentationId = row["presentationId"]
        signed = (row["signed"] as Int? ?? 0) == 1
        manifestHash = row["manifestHash"]
        manifest = (row["manifest"] as String?) ?? ""
        keyId = row["keyId"]
        presentationRevision = row["presentationRevision"]
        packageId = row["packageId"]
        packageRevision = row["packageRevision"]
        created = (row["created"] as String?).flatMap(TrustTime.parse)
        expires = (row["expires"] as String?).flatMap(TrustTime.parse)
        state = (row["state"] as String?) ?? "verified"
        quarantineReason = row["quarantineReason"]
        lastVerifiedAt = (row["lastVerifiedAt"] as String?).flatMap(TrustTime.parse)
        lastVerifyResult = row["lastVerifyResult"]
    }

    /// The columns of a row with its manifest's text (`trustManifest`, by hash; empty if missing),
    /// for a query that joins ``manifestJoin``.
    static let columnsWithManifest = "packageTrust.*, trustManifest.text AS manifest"
    /// Joins each `packageTrust` row to its manifest's text.
    static let manifestJoin = "LEFT JOIN trustManifest ON trustManifest.hash = packageTrust.manifestHash"

    /// The row of `folder`, if it has one.
    package static func read(_ db: Database, folder: String) throws -> InstalledTrust? {
        try Row.fetchOne(
            db, sql: "SELECT \(columnsWithManifest) FROM packageTrust \(manifestJoin) WHERE packageTrust.folder = ?",
            arguments: [folder]
        ).map(InstalledTrust.init(row:))
    }

    /// Deletes the manifest texts that no row names: stored by a sync once it verified a manifest,
    /// for an install that then failed or was killed (a row's deletion takes its text with it, by
    /// trigger). Writes only when there are some. A sync runs it under its lock, before it stores
    /// any; a swap stores its text again if it was not there.
    package static func sweepUnnamedManifests(_ pool: DatabasePool) throws {
        let unnamed = "SELECT hash FROM trustManifest WHERE hash NOT IN (SELECT manifestHash FROM packageTrust)"
        guard try pool.read({ db in try Bool.fetchOne(db, sql: "SELECT EXISTS (\(unnamed))") ?? false }) else { return }
        try pool.write { db in try db.execute(sql: "DELETE FROM trustManifest WHERE hash IN (\(unnamed))") }
    }

    /// The manifest hash of `folder`'s row when it is verified (not quarantined): all a delta
    /// update reads of the installed revision's record to take its verified facts (their files'
    /// hashes are in them; docs/design/TRUST.md 2.3.1). Nil without a row or for a quarantined one.
    package static func verifiedManifestHash(_ db: Database, folder: String) throws -> String? {
        try String.fetchOne(
            db, sql: "SELECT manifestHash FROM packageTrust WHERE folder = ? AND state = 'verified'", arguments: [folder])
    }

    /// The rows of the folders the library serves now, by presentation id (a presentation without
    /// a row, installed before signed packages existed, is absent).
    package static func served(_ db: Database) throws -> [Int: InstalledTrust] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT presentation.id AS servedId, \(columnsWithManifest) FROM presentation
                JOIN packageTrust ON packageTrust.folder = presentation.folder \(manifestJoin)
                """)
        return Dictionary(rows.map { ($0["servedId"] as Int, InstalledTrust(row: $0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The presentations whose served folder's row is quarantined (its state only: no manifest read).
    package static func quarantinedPresentations(_ db: Database) throws -> Set<Int> {
        Set(
            try Int.fetchAll(
                db,
                sql: """
                    SELECT presentation.id FROM presentation JOIN packageTrust ON packageTrust.folder = presentation.folder
                    WHERE packageTrust.state = 'quarantined'
                    """))
    }

    /// Whether the manifest's validity is past its end at `now` (never for an unsigned record).
    func isExpired(at now: Date) -> Bool {
        guard signed, let expires else { return false }
        return now >= expires
    }

    /// Whether a sync should ask for a re-signed manifest: a signed one with less than half its
    /// lifetime left at `now` (docs/design/TRUST.md 2.6).
    package func wantsRefresh(at now: Date) -> Bool {
        guard signed, let created, let expires else { return false }
        return expires.timeIntervalSince(now) < expires.timeIntervalSince(created) / 2
    }

    /// Replaces the stored manifest of `folder` by `record`, a re-signed manifest of the same files
    /// and revisions: no file is touched, the verification state stays.
    package static func replaceManifest(_ db: Database, folder: String, with record: TrustRecord) throws {
        try record.storeManifest(db)
        try db.execute(
            sql: """
                UPDATE packageTrust SET manifestHash = ?, keyId = ?, keysVersion = ?, created = ?, expires = ?
                WHERE folder = ?
                """,
            arguments: [
                record.manifestHash, record.keyId, record.body.keysVersion, TrustTime.format(record.body.created),
                record.body.expires.map(TrustTime.format), folder,
            ])
    }
}
