import Foundation
import GRDB

/// What an install records of the tree it verified (a `packageTrust` row, keyed by the revision's
/// folder, naming its manifest's text in `trustManifest`, and for a signed manifest the
/// presentation's `trustHighWater`), written in the swap transaction so the row and the served
/// revision never disagree (docs/design/TRUST.md 2.7).
package struct TrustRecord: Sendable, Hashable {
    package var presentationId: Int
    /// A signed manifest (true) or the hashes recorded at an unsigned install (false).
    package var signed: Bool
    package var manifestHash: String
    /// The whole document as received (or the local body).
    package var manifest: String
    package var keyId: String?
    package var body: PackageManifest

    package init(presentationId: Int, signed: Bool, manifestHash: String, manifest: String, keyId: String?, body: PackageManifest) {
        self.presentationId = presentationId
        self.signed = signed
        self.manifestHash = manifestHash
        self.manifest = manifest
        self.keyId = keyId
        self.body = body
    }

    /// A local record of the hashed `files` of an unsigned install (rule U3).
    package static func unsigned(
        presentationId: Int, presentationRevision: Int, packageId: Int, packageRevision: Int, files: [ManifestFile], now: Date
    ) throws(TrustFailure) -> TrustRecord {
        let body = PackageManifest(
            presentationId: presentationId, presentationRevision: presentationRevision, packageId: packageId,
            packageRevision: packageRevision, created: now, expires: nil, keysVersion: nil, files: files, isLocal: true)
        let document = SignedManifest(body: body)
        return TrustRecord(
            presentationId: presentationId, signed: false, manifestHash: try document.hash,
            manifest: String(decoding: try document.encoded(), as: UTF8.self), keyId: nil, body: body)
    }

    /// Stores the manifest's text under its hash (`trustManifest`), unless it is stored already:
    /// a sync does so once it has verified a signed manifest, beside the package's fetch, so that
    /// the swap's ``write(_:folder:now:)`` finds it there and writes no text.
    package func storeManifest(_ db: Database) throws {
        try Self.storeManifest(db, text: manifest, hash: manifestHash)
    }

    /// Stores manifest `text` under `hash` unless one is stored under it.
    package static func storeManifest(_ db: Database, text: String, hash: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO trustManifest (hash, text) VALUES (?, ?)", arguments: [hash, text])
    }

    /// Writes the `packageTrust` row of `folder` (with the manifest's text, when not stored yet)
    /// and, for a signed manifest, raises the presentation's high-water mark (setting
    /// `signedSince` at its first signed install).
    package func write(_ db: Database, folder: String, now: Date = Date()) throws {
        try storeManifest(db)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO packageTrust (folder, presentationId, signed, manifestHash, keyId, keysVersion,
                  presentationRevision, packageId, packageRevision, created, expires, state, lastVerifiedAt, lastVerifyResult)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'verified', ?, 'ok')
                """,
            arguments: [
                folder, presentationId, signed ? 1 : 0, manifestHash, keyId, body.keysVersion, body.presentationRevision,
                body.packageId, body.packageRevision, TrustTime.format(body.created), body.expires.map(TrustTime.format),
                TrustTime.format(now),
            ])
        guard signed else { return }
        try db.execute(
            sql: """
                INSERT INTO trustHighWater (presentationId, presentationRevision, packageId, packageRevision, signedSince)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (presentationId) DO UPDATE SET
                  presentationRevision = MAX(presentationRevision, excluded.presentationRevision),
                  packageId = CASE WHEN excluded.presentationRevision >= presentationRevision THEN excluded.packageId ELSE packageId END,
                  packageRevision = CASE WHEN excluded.presentationRevision >= presentationRevision THEN excluded.packageRevision
                                         ELSE packageRevision END,
                  signedSince = COALESCE(signedSince, excluded.signedSince)
                """,
            arguments: [presentationId, body.presentationRevision, body.packageId, body.packageRevision, TrustTime.format(now)])
    }
}

/// A presentation's high-water mark: the highest signed revision it was installed at.
package struct TrustHighWater: Sendable, Hashable {
    package var presentationRevision: Int
    package var packageId: Int?
    package var packageRevision: Int?
    /// When it first arrived signed; `nil` for one never installed signed.
    package var signedSince: String?

    /// The mark of `presentationId`, if it has one.
    package static func read(_ db: Database, presentationId: Int) throws -> TrustHighWater? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM trustHighWater WHERE presentationId = ?", arguments: [presentationId])
        else { return nil }
        return TrustHighWater(
            presentationRevision: row["presentationRevision"], packageId: row["packageId"], packageRevision: row["packageRevision"],
            signedSince: row["signedSince"])
    }
}
