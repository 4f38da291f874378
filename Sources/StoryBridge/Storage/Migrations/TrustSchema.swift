import GRDB

/// What migration `v15-trust` adds (docs/design/TRUST.md 2.7): what each installed or kept
/// revision's files were checked against (`packageTrust`, keyed by the revision's folder), and the
/// highest signed revision each presentation has had (`trustHighWater`), so a sync can never go back
/// to an older signed revision or to an unsigned one. Revisions installed before have no row and
/// show as `unverified`.
enum TrustSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "packageTrust") { table in
            table.primaryKey("folder", .text)
            table.column("presentationId", .integer).notNull()
            // 1: a signed manifest; 0: the hashes recorded at an unsigned install.
            table.column("signed", .integer).notNull()
            table.column("manifestHash", .text).notNull()
            // The whole document as received (or the local body).
            table.column("manifest", .text).notNull()
            table.column("keyId", .text)
            table.column("keysVersion", .integer)
            table.column("presentationRevision", .integer)
            table.column("packageId", .integer)
            table.column("packageRevision", .integer)
            table.column("created", .text)
            table.column("expires", .text)
            table.column("state", .text).notNull().defaults(to: "verified")
            table.column("quarantinedAt", .text)
            table.column("quarantineReason", .text)
            table.column("lastVerifiedAt", .text)
            table.column("lastVerifyResult", .text)
        }
        try db.create(index: "packageTrustByPresentation", on: "packageTrust", columns: ["presentationId"])
        try db.create(table: "trustHighWater") { table in
            table.primaryKey("presentationId", .integer)
            table.column("presentationRevision", .integer).notNull()
            table.column("packageId", .integer)
            table.column("packageRevision", .integer)
            // Set at the first signed install; never cleared by a sync.
            table.column("signedSince", .text)
        }
    }
}
