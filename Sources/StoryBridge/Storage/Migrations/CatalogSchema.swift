import GRDB

/// What migration `v1-catalog` creates: the library's catalog of installed presentations
/// (`presentation`), their slides with links and swipe targets (`slide`) and media files
/// (`mediaFile`), read and written by ``LibraryStore``.
enum CatalogSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "presentation") { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("shortDescription", .text).notNull().defaults(to: "")
            table.column("longDescription", .text).notNull().defaults(to: "")
            table.column("revision", .integer).notNull().defaults(to: 1)
            table.column("sortOrder", .integer).notNull().defaults(to: 0)
            table.column("folder", .text).notNull()
            table.column("sizeBytes", .integer).notNull().defaults(to: 0)
            table.column("fileCount", .integer).notNull().defaults(to: 0)
            table.column("source", .text).notNull().defaults(to: "")
            table.column("installedAt", .datetime).notNull()
        }
        try db.create(table: "slide") { table in
            table.column("presentationId", .integer).notNull()
                .references("presentation", onDelete: .cascade)
            table.column("name", .text).notNull()
            table.column("title", .text)
            table.column("swipeNext", .text)
            table.column("swipePrevious", .text)
            table.column("links", .text).notNull().defaults(to: "[]")
            table.primaryKey(["presentationId", "name"])
        }
        try db.create(table: "mediaFile") { table in
            table.column("presentationId", .integer).notNull()
                .references("presentation", onDelete: .cascade)
            table.column("fileName", .text).notNull()
            table.column("title", .text).notNull()
            table.primaryKey(["presentationId", "fileName"])
        }
    }
}
