/// The Tables module (§5.8), which neither reference app offers: entries as JSON per table id in
/// SQLite, queried with the StoryCLM query language (see ``TablesQuery``).
///
/// Answers: `tables` → `[{id, name, schema, created}]`; `findById` → the entry (404 when absent);
/// `findByIds`, `findByQuery` → `[entries]`; `insertEntry` → the entry with its `_id`;
/// `insertEntries` → `[entries]`; `updateEntry`/`updateEntries` → the entries (404 for an unknown
/// `_id`, nothing changed); `deleteById` → the deleted entry (404 when absent); `deleteByIds` →
/// `[deleted]`; `count`, `countByQuery` → `{count}`.
struct TablesModule: BridgeModule {
    package let name = "Tables"
    package let store: TablesStore

    package init(store: TablesStore) {
        self.store = store
    }

    /// Every command reads or writes the tables database, in the page's order.
    package var commands: CommandTable {
        BridgeCommand("tables") { _, _ in try await store.tables() }
        BridgeCommand("findById") { request, _ in
            let tableId = try request.int("tableId")
            let id = try request.string("id")
            guard let entry = try await store.entry(tableId: tableId, id: id) else {
                throw BridgeError.notFound("No entry '\(id)' in table \(tableId)")
            }
            return .object(entry)
        }
        BridgeCommand("findByIds") { request, _ in
            let tableId = try request.int("tableId")
            let ids = try stringList(request, "ids")
            var found: [JSONValue] = []
            for id in ids { if let entry = try await store.entry(tableId: tableId, id: id) { found.append(.object(entry)) } }
            return .array(found)
        }
        BridgeCommand("findByQuery") { request, _ in
            .array(try await query(request, tableId: try await queriedTableId(request), paged: true).map(JSONValue.object))
        }
        BridgeCommand("insertEntry") { request, _ in
            .object(try await store.insert(tableId: try request.int("tableId"), entries: [try object(request, "entry")])[0])
        }
        BridgeCommand("insertEntries") { request, _ in
            let tableId = try request.int("tableId")
            return .array(try await store.insert(tableId: tableId, entries: try objectList(request, "entries")).map(JSONValue.object))
        }
        BridgeCommand("updateEntry") { request, _ in
            .object(try await update(tableId: try request.int("tableId"), entries: [try object(request, "entry")])[0])
        }
        BridgeCommand("updateEntries") { request, _ in
            let tableId = try request.int("tableId")
            return .array(try await update(tableId: tableId, entries: try objectList(request, "entries")).map(JSONValue.object))
        }
        BridgeCommand("deleteById") { request, _ in
            let tableId = try request.int("tableId")
            let id = try request.string("id")
            guard let deleted = try await store.delete(tableId: tableId, ids: [id]).first else {
                throw BridgeError.notFound("No entry '\(id)' in table \(tableId)")
            }
            return .object(deleted)
        }
        BridgeCommand("deleteByIds") { request, _ in
            let tableId = try request.int("tableId")
            return .array(try await store.delete(tableId: tableId, ids: try stringList(request, "ids")).map(JSONValue.object))
        }
        BridgeCommand("count") { request, _ in
            ["count": .int(try await store.entries(tableId: try request.int("tableId")).count)]
        }
        BridgeCommand("countByQuery") { request, _ in
            ["count": .int(try await query(request, tableId: try request.int("tableId"), paged: false).count)]
        }
    }

    /// The table `findByQuery` asks about: storyclm.js sends the TablesQuery without a tableId,
    /// which is usable only when exactly one table exists.
    private func queriedTableId(_ request: BridgeRequest) async throws -> Int {
        if try request.member("tableId") != nil { return try request.int("tableId") }
        guard case .array(let tables) = try await store.tables(), tables.count == 1, let only = tables[0]["id"]?.intValue else {
            throw BridgeError.invalidData(
                field: "tableId", reason: "is missing (set query.tableId; it is needed when there is not exactly one table)")
        }
        return only
    }

    /// Replaces entries by their `_id`; 400 without one, 404 for an unknown one (nothing changed).
    private func update(tableId: Int, entries: [[String: JSONValue]]) async throws -> [[String: JSONValue]] {
        do {
            return try await store.update(tableId: tableId, entries: entries)
        } catch TablesStore.UpdateError.missingId {
            throw BridgeError.invalidData(field: "entry._id", reason: "is missing")
        } catch TablesStore.UpdateError.unknownEntry(let id) {
            throw BridgeError.notFound("No entry '\(id)' in table \(tableId)")
        }
    }

    private func query(_ request: BridgeRequest, tableId: Int, paged: Bool) async throws -> [[String: JSONValue]] {
        // countByQuery sends {tableId, query: "<text>" or a TablesQuery}; findByQuery sends the TablesQuery itself.
        var spec = try request.dataObject()
        if request.command == "countByQuery", case .object(let nested)? = spec["query"] { spec = nested }
        let text: String
        switch spec["query"] {
        case .string(let value)?: text = value
        case nil, .null?: text = ""
        case let other?: throw BridgeError.invalidData(field: "query", reason: "must be a string, got \(other.typeDescription)")
        }
        let parsed: TablesQuery
        do {
            parsed = try TablesQuery.parse(text)
        } catch {
            throw BridgeError.invalidData(field: "query", reason: "cannot be read: \(error.description)")
        }
        var matches = try await store.entries(tableId: tableId).filter { try parsed.matches($0) }
        guard paged else { return matches }
        let sort = spec["sort"]?.intValue ?? -1
        if sort == 0 || sort == 1, let field = spec["sortfield"]?.stringValue, !field.isEmpty {
            matches.sort { left, right in
                let order = TablesQuery.order(left[field] ?? .null, right[field] ?? .null)
                return sort == 0 ? order == .orderedAscending : order == .orderedDescending
            }
        }
        let skip = max(0, spec["skip"]?.intValue ?? 0)
        let take = max(0, spec["take"]?.intValue ?? 100)
        return Array(matches.dropFirst(skip).prefix(take))
    }

    private func object(_ request: BridgeRequest, _ field: String) throws -> [String: JSONValue] {
        guard case .object(let members)? = try request.member(field) else {
            throw BridgeError.invalidData(field: field, reason: "must be an object")
        }
        return members
    }

    private func objectList(_ request: BridgeRequest, _ field: String) throws -> [[String: JSONValue]] {
        guard case .array(let items)? = try request.member(field) else {
            throw BridgeError.invalidData(field: field, reason: "must be an array of objects")
        }
        return try items.enumerated().map { index, item in
            guard case .object(let members) = item else {
                throw BridgeError.invalidData(field: "\(field)[\(index)]", reason: "must be an object")
            }
            return members
        }
    }

    private func stringList(_ request: BridgeRequest, _ field: String) throws -> [String] {
        guard case .array(let items)? = try request.member(field) else {
            throw BridgeError.invalidData(field: field, reason: "must be an array of ids")
        }
        return try items.enumerated().map { index, item in
            guard let text = item.stringValue else {
                throw BridgeError.invalidData(field: "\(field)[\(index)]", reason: "must be a string")
            }
            return text
        }
    }
}
