import Foundation
import GRDB

/// The Veeva dialect's CRM records in SQLite: each presentation's data set, imported when its file
/// changes, and the records content creates or updates (kept one by one, with the session they
/// were made in).
package struct CRMStore: Sendable {
    let database: StoryBridgeDatabase
    let clock: any HostClock
    /// The records in memory, answered from without a database read.
    package let memory = CRMMemory()

    package init(database: StoryBridgeDatabase, clock: any HostClock) {
        self.database = database
        self.clock = clock
    }

    /// A stored record.
    struct Row: Codable, FetchableRecord, PersistableRecord, Sendable {
        static let databaseTableName = "crmRecord"
        var presentationId: Int
        var objectName: String
        var recordId: String
        var fields: String
        var origin: String
        var sessionId: String?
        var saved: Double?

        func values() -> [String: JSONValue] {
            (try? JSONValue.parse(fields))?.objectValue ?? [:]
        }
    }

    struct ImportedSet: Codable, FetchableRecord, PersistableRecord, Sendable {
        static let databaseTableName = "crmDataSet"
        var presentationId: Int
        var stamp: String
        var current: String
    }

    /// The origin of a record imported from the data set.
    static let fromDataSet = "dataset"
    /// The origin of the row that names an object the data set lists with no records.
    static let emptyObject = "object"

    /// The records of `presentation` in memory (``CRMMemory``): the snapshot when its data set's
    /// file was looked at less than a second ago; otherwise the file is looked at (a `stat` on the
    /// blocking pool), imported into SQLite when it changed since the last import, and the snapshot
    /// read again from SQLite (the data set's rows and the records content saved).
    package func prepare(_ presentation: Presentation) async throws -> CRMMemory.Snapshot {
        let id = presentation.id
        let now = clock.now
        if let fresh = memory.fresh(id, now: now) { return fresh }
        let stamp: String
        if let file = presentation.crmDataSet {
            stamp = try await BlockingIO.run { () throws -> String in
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                let date = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                return "\(attributes[.size] as? Int ?? 0)-\(date)-\(file.path)"
            }
        } else {
            stamp = "none"
        }
        if let known = memory.any(id), known.stamp == stamp, let touched = memory.touch(id, at: now) { return touched }
        let stored = try await database.read { db in try ImportedSet.fetchOne(db, key: id) }
        if let file = presentation.crmDataSet, stored?.stamp != stamp {
            let set = try await BlockingIO.run { () throws -> CRMDataSet in try CRMDataSet.load(file) }
            let current = JSONValue.object(set.current.mapValues(JSONValue.string)).jsonString()
            try await database.write { db in
                try Row.filter(Column("presentationId") == id && [Self.fromDataSet, Self.emptyObject].contains(Column("origin"))).deleteAll(
                    db)
                // A record content saved over a data set's record keeps content's values.
                let saved = Set(
                    try Row.filter(Column("presentationId") == id && Column("origin") == "saved").fetchAll(db).map {
                        "\($0.objectName.lowercased())/\($0.recordId)"
                    })
                for (object, records) in set.objects {
                    // An object listed with no records is one the CRM has (a query answers no
                    // rows), not one it lacks (1011): a row of its own says so.
                    if records.isEmpty {
                        try Row(presentationId: id, objectName: object, recordId: "", fields: "{}", origin: Self.emptyObject).save(db)
                    }
                    for fields in records {
                        let recordId = CRMRecord.id(of: fields) ?? UUID().uuidString
                        guard !saved.contains("\(object.lowercased())/\(recordId)") else { continue }
                        try Row(
                            presentationId: id, objectName: object, recordId: recordId, fields: JSONValue.object(fields).jsonString(),
                            origin: Self.fromDataSet
                        ).save(db)
                    }
                }
                try ImportedSet(presentationId: id, stamp: stamp, current: current).save(db)
            }
        }
        let (rows, imported) = try await database.read { db in
            (try Row.filter(Column("presentationId") == id).fetchAll(db), try ImportedSet.fetchOne(db, key: id))
        }
        var snapshot = CRMMemory.Snapshot(
            stamp: stamp, checkedAt: now, current: presentation.crmDataSet == nil ? [:] : Self.current(imported?.current ?? "{}"),
            objects: [:])
        for row in rows {
            if row.origin == Self.emptyObject {
                snapshot.declare(row.objectName)
            } else {
                snapshot.put(row.values(), object: row.objectName)
            }
        }
        memory.keep(snapshot, for: id)
        return snapshot
    }

    private static func current(_ text: String) -> [String: String] {
        ((try? JSONValue.parse(text))?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// Saves a record content created (`recordId` nil: a new id) or updated (its fields merged
    /// into the stored ones); returns its id and the operation (`insert` or `update`).
    func save(
        presentationId: Int, object: String, recordId: String?, fields: [String: JSONValue], sessionId: String?
    ) async throws -> (id: String, operation: String) {
        let moment = clock.now
        let now = moment.timeIntervalSince1970
        let memory = self.memory
        let decks = database.auditDecks
        return try await database.write { db in
            func audit(_ row: Row) throws {
                let deck =
                    try sessionId.map { try decks.deck(of: $0, presentationId: presentationId, db: db) }
                    ?? AuditDeck(presentationId: presentationId)
                try AuditLog.append(
                    db, in: database, kind: AuditKind.crmSaved, deck: deck,
                    changes: [.upsert(row, conflict: ["presentationId", "objectName", "recordId"])],
                    at: moment)
            }
            if let recordId {
                let existing = try Row.filter(
                    Column("presentationId") == presentationId && Column("objectName").lowercased == object.lowercased()
                        && Column("recordId") == recordId
                ).fetchOne(db)
                var merged = existing?.values() ?? [:]
                for (key, value) in fields where key != "IdNumber" { merged[key] = value }
                if merged["Id"] == nil, merged["id"] == nil { merged["Id"] = .string(recordId) }
                let row = Row(
                    presentationId: presentationId, objectName: existing?.objectName ?? object, recordId: recordId,
                    fields: JSONValue.object(merged).jsonString(), origin: "saved", sessionId: sessionId, saved: now)
                try row.save(db)
                try audit(row)
                self.database.afterCommit(db) { [merged] in
                    memory.saved(merged, object: existing?.objectName ?? object, presentationId: presentationId)
                }
                return (recordId, "update")
            }
            let id = "SB" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
            var values = fields
            values["Id"] = .string(id)
            let row = Row(
                presentationId: presentationId, objectName: object, recordId: id, fields: JSONValue.object(values).jsonString(),
                origin: "saved", sessionId: sessionId, saved: now)
            try row.insert(db)
            try audit(row)
            self.database.afterCommit(db) { [values] in memory.saved(values, object: object, presentationId: presentationId) }
            return (id, "insert")
        }
    }

    /// The records content saved for `presentationId`, oldest first (tests, the inspector).
    package func savedRecords(presentationId: Int) async throws -> [(
        object: String, id: String, fields: [String: JSONValue], sessionId: String?
    )] {
        try await database.read { db in
            try Row.filter(Column("presentationId") == presentationId && Column("origin") == "saved").order(Column("saved")).fetchAll(db)
        }.map { ($0.objectName, $0.recordId, $0.values(), $0.sessionId) }
    }

    /// The records content saved in `sessionId`, oldest first, as they are uploaded with the saved
    /// session (inside its transaction): `{sessionId, presentationId, object, id, fields, saved}`.
    static func savedRecords(sessionId: String, db: Database) throws -> [(entityId: String, json: JSONValue)] {
        try Row.filter(Column("sessionId") == sessionId && Column("origin") == "saved").order(Column("saved")).fetchAll(db).map { row in
            let saved = row.saved.map { AnalyticsFormat.timestamp(Date(timeIntervalSince1970: $0)) }
            return (
                "\(row.presentationId):\(row.objectName):\(row.recordId)",
                [
                    "sessionId": .string(sessionId), "presentationId": .int(row.presentationId), "object": .string(row.objectName),
                    "id": .string(row.recordId), "fields": .object(row.values()), "saved": saved.map(JSONValue.string) ?? .null,
                ]
            )
        }
    }
}
