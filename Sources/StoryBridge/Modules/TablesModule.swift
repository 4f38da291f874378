/// The Tables module (§5.8), which neither reference app offers: entries as JSON per table id in
/// SQLite, queried with the StoryCLM query language (see ``TablesQuery``).
///
/// Answers: `tables` → `[{id, name, schema, created}]`; `findById` → the entry (404 when absent);
/// `findByIds`, `findByQuery` → `[entries]`; `insertEntry` → the entry with its `_id`;
/// `insertEntries` → `[entries]`; `updateEntry`/`updateEntries` → the entries (404 for an unknown
/// `_id`, nothing changed); `deleteById` → the deleted entry (404 when absent); `deleteByIds` →
/// `[deleted]`; `count`, `countByQuery` → `{count}`.
public struct TablesModule: BridgeModule {
    public let name = "Tables"
    public let commands = [
        "tables", "findById", "findByIds", "findByQuery", "insertEntry", "insertEntries", "updateEntry", "updateEntries",
        "deleteById", "deleteByIds", "count", "countByQuery",
    ]
    public let store: TablesStore

    public init(store: TablesStore) {
        self.store = store
    }

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        if request.command == "tables" { return try await store.tables() }
        let tableId: Int
        if request.command == "findByQuery", try request.member("tableId") == nil {
            // storyclm.js sends the TablesQuery without a tableId; usable only when one table exists.
            guard case .array(let tables) = try await store.tables(), tables.count == 1, let only = tables[0]["id"]?.intValue else {
                throw BridgeError.invalidData(
                    field: "tableId", reason: "is missing (set query.tableId; it is needed when there is not exactly one table)")
            }
            tableId = only
        } else {
            tableId = try request.int("tableId")
        }
        switch request.command {
        case "findById":
            let id = try request.string("id")
            guard let entry = try await store.entry(tableId: tableId, id: id) else {
                throw BridgeError.notFound("No entry '\(id)' in table \(tableId)")
            }
            return .object(entry)
        case "findByIds":
            let ids = try stringList(request, "ids")
            var found: [JSONValue] = []
            for id in ids { if let entry = try await store.entry(tableId: tableId, id: id) { found.append(.object(entry)) } }
            return .array(found)
        case "findByQuery":
            return .array(try await query(request, tableId: tableId, paged: true).map(JSONValue.object))
        case "count":
            return ["count": .int(try await store.entries(tableId: tableId).count)]
        case "countByQuery":
            return ["count": .int(try await query(request, tableId: tableId, paged: false).count)]
        case "insertEntry":
            return .object(try await store.insert(tableId: tableId, entries: [try object(request, "entry")])[0])
        case "insertEntries":
            return .array(try await store.insert(tableId: tableId, entries: try objectList(request, "entries")).map(JSONValue.object))
        case "updateEntry", "updateEntries":
            let entries = request.command == "updateEntry" ? [try object(request, "entry")] : try objectList(request, "entries")
            do {
                let updated = try await store.update(tableId: tableId, entries: entries)
                return request.command == "updateEntry" ? .object(updated[0]) : .array(updated.map(JSONValue.object))
            } catch TablesStore.UpdateError.missingId {
                throw BridgeError.invalidData(field: "entry._id", reason: "is missing")
            } catch TablesStore.UpdateError.unknownEntry(let id) {
                throw BridgeError.notFound("No entry '\(id)' in table \(tableId)")
            }
        case "deleteById":
            let id = try request.string("id")
            guard let deleted = try await store.delete(tableId: tableId, ids: [id]).first else {
                throw BridgeError.notFound("No entry '\(id)' in table \(tableId)")
            }
            return .object(deleted)
        default:  // deleteByIds
            return .array(try await store.delete(tableId: tableId, ids: try stringList(request, "ids")).map(JSONValue.object))
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
