import GRDB

/// What the library reads from the sync catalog (`syncPresentation`, written by
/// `storybridge sync`): a presentation's platform flags and the name of one that is known to the
/// content service but not installed. A presentation the catalog has no row for has
/// ``PresentationFlags/defaults`` and no catalog name.
enum SyncCatalogFacts {
    /// The columns ``flags(from:)`` reads, for queries that join the catalog.
    static let flagColumns = "syncPresentation.lockout, syncPresentation.visibility, syncPresentation.needConfirmation"

    /// The flags of presentation `id`.
    static func flags(presentationId id: Int, db: Database) throws -> PresentationFlags {
        let row = try Row.fetchOne(
            db, sql: "SELECT \(flagColumns) FROM syncPresentation WHERE id = ?", arguments: [id])
        return row.map(flags(from:)) ?? .defaults
    }

    /// The flags in a row holding ``flagColumns`` (all `NULL` when a left join found no catalog row).
    static func flags(from row: Row) -> PresentationFlags {
        PresentationFlags(
            isListed: (row["visibility"] as Bool?) ?? true, isLockedOut: (row["lockout"] as Bool?) ?? false,
            needsConfirmation: (row["needConfirmation"] as Bool?) ?? false)
    }

    /// The name the content service gives presentation `id`, when the catalog knows it.
    static func name(presentationId id: Int, db: Database) throws -> String? {
        let name = try String.fetchOne(db, sql: "SELECT name FROM syncPresentation WHERE id = ?", arguments: [id])
        return name?.isEmpty == false ? name : nil
    }
}
