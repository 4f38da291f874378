import GRDB

/// What migration `v13-crm` creates: the Veeva dialect's CRM records (`crmRecord`: the data set's,
/// imported per presentation, and those content saved, clickstream records included, one row
/// each) and each presentation's imported data set (`crmDataSet`: its file's stamp and the
/// current record ids).
enum CRMSchema {
    static func create(_ db: Database) throws {
        try db.create(table: "crmRecord") { table in
            table.column("presentationId", .integer).notNull()
            table.column("objectName", .text).notNull()
            table.column("recordId", .text).notNull()
            table.column("fields", .text).notNull()
            // "dataset" (imported) or "saved" (createRecord / updateRecord of content).
            table.column("origin", .text).notNull()
            table.column("sessionId", .text)
            table.column("saved", .double)
            table.primaryKey(["presentationId", "objectName", "recordId"])
        }
        try db.create(table: "crmDataSet") { table in
            table.primaryKey("presentationId", .integer)
            table.column("stamp", .text).notNull()
            table.column("current", .text).notNull()
        }
    }
}
