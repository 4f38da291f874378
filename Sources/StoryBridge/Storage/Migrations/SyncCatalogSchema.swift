import GRDB

/// The tables `storybridge sync` keeps about the content service (migration `v5-sync`): the
/// clients the account sees, their presentations with remote and installed revisions and a
/// download state, and the media and slide stubs each presentation lists.
///
/// They live beside the library's own `presentation` table: a synced presentation that finished
/// downloading is also a library row (same id, `source` starting with `sync:`), which is what
/// `serve` shows.
enum SyncCatalogSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "syncClient") { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull().defaults(to: "")
            table.column("shortDescription", .text).notNull().defaults(to: "")
            table.column("syncedAt", .datetime).notNull()
        }
        try db.create(table: "syncPresentation") { table in
            table.primaryKey("id", .integer)
            table.column("clientId", .integer).notNull().references("syncClient", onDelete: .cascade)
            table.column("name", .text).notNull().defaults(to: "")
            table.column("shortDescription", .text).notNull().defaults(to: "")
            table.column("longDescription", .text).notNull().defaults(to: "")
            table.column("sortOrder", .integer).notNull().defaults(to: 0)
            // The presentation object's revision as the client list reports it, and the one of the
            // object last fetched (they differ until the next metadata sync fetches it).
            table.column("listedRevision", .integer).notNull()
            table.column("fetchedRevision", .integer)
            table.column("skip", .boolean).notNull().defaults(to: false)
            table.column("debug", .boolean).notNull().defaults(to: false)
            table.column("lockout", .boolean).notNull().defaults(to: false)
            table.column("visibility", .boolean).notNull().defaults(to: true)
            table.column("needConfirmation", .boolean).notNull().defaults(to: false)
            table.column("mapEnabled", .boolean).notNull().defaults(to: false)
            table.column("dependencies", .text).notNull().defaults(to: "[]")
            // The content package (`sourcesFolder`) the service offers, and the one installed.
            table.column("packageId", .integer)
            table.column("packageRevision", .integer)
            table.column("packageBlobId", .text)
            table.column("packageSize", .integer)
            table.column("installedRevision", .integer)
            table.column("installedPresentationRevision", .integer)
            table.column("state", .text).notNull().defaults(to: "notDownloaded")
            table.column("lastError", .text)
            table.column("updatedAt", .datetime).notNull()
        }
        try db.create(index: "syncPresentation_by_client", on: "syncPresentation", columns: ["clientId"])
        try db.create(table: "syncMediaFile") { table in
            table.column("presentationId", .integer).notNull().references("syncPresentation", onDelete: .cascade)
            table.column("id", .integer).notNull()
            table.column("revision", .integer).notNull()
            table.column("fileSize", .integer).notNull().defaults(to: 0)
            table.primaryKey(["presentationId", "id"])
        }
        try db.create(table: "syncSlide") { table in
            table.column("presentationId", .integer).notNull().references("syncPresentation", onDelete: .cascade)
            table.column("id", .integer).notNull()
            table.column("revision", .integer).notNull()
            table.primaryKey(["presentationId", "id"])
        }
    }

    /// Migration `v9-sync-guards`: what guarded removals, per-presentation failures, tolerated
    /// sizes and package identity need.
    static func addGuards(_ db: Database) throws {
        try db.alter(table: "syncPresentation") { table in
            // When the presentation was first seen gone from the service (state `withdrawn`); it is
            // removed once it has stayed gone for the removal grace period.
            table.add(column: "withdrawnAt", .datetime)
            // Which part of a sync failed (`metadata` or `content`), so the next successful fetch
            // clears a metadata failure but not a failed download of an unchanged package.
            table.add(column: "failedDuring", .text)
            // A warning kept with an installed package (its size differed from the declared one).
            table.add(column: "warning", .text)
            // The package object (`sourcesFolder.id`) installed, tracked with its revision.
            table.add(column: "installedPackageId", .integer)
        }
    }
}
