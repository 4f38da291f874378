import GRDB

/// What migration `v21-trust-manifests` changes (docs/design/TRUST.md 2.7): a manifest's text
/// moves from its `packageTrust` row to `trustManifest`, one row per manifest hash, so that a
/// sync stores a signed manifest's text (54 KB for a deck of 400 files) when it has verified it,
/// beside the package's fetch, and the install's swap transaction writes only the row that names
/// it. A manifest no `packageTrust` row names any more goes with the last row that named it
/// (triggers); one stored by a sync whose install then failed is swept by the next sync.
enum TrustManifestSchema {
    static func migrate(_ db: Database) throws {
        try db.create(table: "trustManifest") { table in
            table.primaryKey("hash", .text)
            // The whole document as received (or the local body of an unsigned install).
            table.column("text", .text).notNull()
        }
        try db.execute(sql: "INSERT OR IGNORE INTO trustManifest (hash, text) SELECT manifestHash, manifest FROM packageTrust")
        try db.alter(table: "packageTrust") { table in table.drop(column: "manifest") }
        try db.execute(
            sql: """
                CREATE TRIGGER trustManifestReleasedByDelete AFTER DELETE ON packageTrust
                WHEN NOT EXISTS (SELECT 1 FROM packageTrust WHERE manifestHash = OLD.manifestHash)
                BEGIN DELETE FROM trustManifest WHERE hash = OLD.manifestHash; END;
                CREATE TRIGGER trustManifestReleasedByUpdate AFTER UPDATE OF manifestHash ON packageTrust
                WHEN OLD.manifestHash <> NEW.manifestHash
                  AND NOT EXISTS (SELECT 1 FROM packageTrust WHERE manifestHash = OLD.manifestHash)
                BEGIN DELETE FROM trustManifest WHERE hash = OLD.manifestHash; END;
                """)
    }
}
