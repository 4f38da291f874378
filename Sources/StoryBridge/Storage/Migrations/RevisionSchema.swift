import GRDB

/// What migration `v11-revisions` adds for kept revisions, rollback and history:
///
/// - table `keptRevision`: an earlier revision of a presentation whose folder stays on disk
///   (`--keep-revisions`), with the catalog facts it was served with (slides and media files as
///   JSON), so a rollback is one transaction that points the library row at it again.
/// - table `revisionPin`: a presentation rolled back and pinned to the revision it serves until
///   `storybridge unpin` or until the service publishes a package newer than the one rolled back from.
/// - table `revisionHistory`: every install, update, rollback and removal, with the time, the
///   revision, the bytes transferred and how (``RevisionHistory/How``).
enum RevisionSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "keptRevision") { table in
            table.primaryKey("folder", .text)
            table.column("presentationId", .integer).notNull()
            table.column("revision", .integer).notNull()
            table.column("packageRevision", .integer)
            table.column("packageId", .integer)
            table.column("name", .text).notNull()
            table.column("shortDescription", .text).notNull()
            table.column("longDescription", .text).notNull()
            table.column("sortOrder", .integer).notNull()
            table.column("sizeBytes", .integer).notNull()
            table.column("fileCount", .integer).notNull()
            table.column("source", .text).notNull()
            table.column("installedAt", .datetime).notNull()
            table.column("slides", .text).notNull()
            table.column("mediaFiles", .text).notNull()
            table.column("keptAt", .datetime).notNull()
        }
        try db.create(index: "keptRevision_by_presentation", on: "keptRevision", columns: ["presentationId", "keptAt"])
        try db.create(table: "revisionPin") { table in
            table.primaryKey("presentationId", .integer)
            table.column("revision", .integer).notNull()
            table.column("packageRevision", .integer)
            table.column("rolledBackFromRevision", .integer).notNull()
            table.column("rolledBackFromPackageRevision", .integer)
            table.column("pinnedAt", .datetime).notNull()
        }
        try db.create(table: "revisionHistory") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("at", .datetime).notNull()
            table.column("presentationId", .integer).notNull()
            table.column("event", .text).notNull()
            table.column("how", .text).notNull()
            table.column("revision", .integer)
            table.column("packageRevision", .integer)
            table.column("bytes", .integer).notNull().defaults(to: 0)
        }
        try db.create(index: "revisionHistory_by_presentation", on: "revisionHistory", columns: ["presentationId", "at"])
        // The library revision a session showed: "which revision was on screen at time T".
        try db.alter(table: "session") { table in
            table.add(column: "presentationRevision", .integer)
        }
    }

    /// Migration `v12-history-package-size`: `revisionHistory.packageSize`, the size of the
    /// package a download installed (NULL for other lines and for lines written before), so the
    /// bytes a delta update saved are `packageSize - bytes`.
    static func addPackageSize(_ db: Database) throws {
        try db.alter(table: "revisionHistory") { table in
            table.add(column: "packageSize", .integer)
        }
    }
}
