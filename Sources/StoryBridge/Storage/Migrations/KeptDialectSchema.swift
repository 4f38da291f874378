import GRDB

/// What migration `v17-kept-dialect` adds: the dialect a kept revision was served as
/// (`keptRevision.dialect`, `storyclm` for the ones kept before), so a rollback, a `diff` or a
/// `shots --revision` of a Veeva or OCE deck reads it as it was installed. The slides' places in
/// the order travel in the kept slides' JSON (`position`; absent in older rows: name order).
enum KeptDialectSchema {
    static func addDialect(_ db: Database) throws {
        try db.alter(table: "keptRevision") { table in
            table.add(column: "dialect", .text).notNull().defaults(to: DialectName.storyclm.rawValue)
        }
    }
}
