import GRDB

/// What migration `v3-tables` creates: the data tables content keeps through the Tables module
/// (`dataTable`, one row per table with its schema) and their entries (`tableEntry`).
enum TablesSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "dataTable") { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("schema", .text).notNull().defaults(to: "[]")
            table.column("created", .text).notNull()
        }
        try db.create(table: "tableEntry") { table in
            table.column("tableId", .integer).notNull()
            table.column("id", .text).notNull()
            table.column("body", .text).notNull()
            table.column("created", .double).notNull()
            table.primaryKey(["tableId", "id"])
        }
    }
}
