import GRDB

/// What the library reads from the sync catalog (`syncPresentation`, written by
/// `storybridge sync`): a presentation's platform flags and the name of one that is known to the
/// content service but not installed. The flags belong to the service's package: a presentation
/// installed by hand (its library row's `source` does not start with ``librarySourcePrefix``), or
/// one the catalog has no row for, has ``PresentationFlags/defaults``.
enum SyncCatalogFacts {
    /// How `storybridge sync` marks the library rows it installs (`SyncPaths.librarySourcePrefix`).
    static let librarySourcePrefix = "sync:"

    /// The columns ``flags(from:)`` reads, for queries that join the catalog.
    static let flagColumns =
        "syncPresentation.lockout, syncPresentation.visibility, syncPresentation.needConfirmation, syncPresentation.state AS syncState"

    /// The join that adds the catalog's row to a synced library row (`presentation`), or `NULL`s.
    static let joinOnSyncedRow =
        "LEFT JOIN syncPresentation ON syncPresentation.id = presentation.id AND presentation.source LIKE '\(librarySourcePrefix)%'"

    /// The flags of presentation `id`, whose library row came from `source`.
    static func flags(presentationId id: Int, source: String, db: Database) throws -> PresentationFlags {
        guard source.hasPrefix(librarySourcePrefix) else { return .defaults }
        let row = try Row.fetchOne(
            db, sql: "SELECT \(flagColumns) FROM syncPresentation WHERE id = ?", arguments: [id])
        return row.map(flags(from:)) ?? .defaults
    }

    /// The flags in a row holding ``flagColumns`` (all `NULL` when a left join found no catalog row).
    static func flags(from row: Row) -> PresentationFlags {
        PresentationFlags(
            isListed: (row["visibility"] as Bool?) ?? true, isLockedOut: (row["lockout"] as Bool?) ?? false,
            needsConfirmation: (row["needConfirmation"] as Bool?) ?? false,
            isWithdrawn: (row["syncState"] as String?) == "withdrawn")
    }

    /// The quarantine columns of the served folder's `packageTrust` row, for queries that join it
    /// with ``joinOnTrustRow``.
    static let quarantineColumns = "packageTrust.state AS trustState, packageTrust.quarantineReason AS trustQuarantine"

    /// The join that adds the served folder's `packageTrust` row to a library row, or `NULL`s.
    static let joinOnTrustRow = "LEFT JOIN packageTrust ON packageTrust.folder = presentation.folder"

    /// The quarantine reason in a row holding ``quarantineColumns``; `nil` when not quarantined.
    static func quarantine(from row: Row) -> String? {
        guard (row["trustState"] as String?) == "quarantined" else { return nil }
        return (row["trustQuarantine"] as String?) ?? "its files differ from its manifest"
    }

    /// The quarantine reason of the revision in `folder`; `nil` when it is not quarantined.
    static func quarantine(folder: String, db: Database) throws -> String? {
        let row = try Row.fetchOne(
            db, sql: "SELECT \(quarantineColumns) FROM packageTrust WHERE folder = ?", arguments: [folder])
        return row.flatMap(quarantine(from:))
    }

    /// The name the content service gives presentation `id`, when the catalog knows it.
    static func name(presentationId id: Int, db: Database) throws -> String? {
        let name = try String.fetchOne(db, sql: "SELECT name FROM syncPresentation WHERE id = ?", arguments: [id])
        return name?.isEmpty == false ? name : nil
    }
}
