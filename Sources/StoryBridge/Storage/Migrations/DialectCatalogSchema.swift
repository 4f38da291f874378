import GRDB

/// What migration `v14-catalog-dialect` adds to the catalog (``CatalogSchema``): each installed
/// presentation's dialect (`presentation.dialect`, `storyclm` for every presentation installed
/// before) and each slide's place in the presentation's order (`slide.position`; StoryCLM's slides
/// keep name order, which position 0 for all of them gives).
enum DialectCatalogSchema {
    static func addDialect(_ db: Database) throws {
        try db.alter(table: "presentation") { table in
            table.add(column: "dialect", .text).notNull().defaults(to: DialectName.storyclm.rawValue)
        }
        try db.alter(table: "slide") { table in
            table.add(column: "position", .integer).notNull().defaults(to: 0)
        }
    }
}
