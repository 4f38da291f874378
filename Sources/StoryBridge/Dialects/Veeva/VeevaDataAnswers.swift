import Foundation

/// The data requests of the Veeva libraries, answered from the presentation's CRM data set and the
/// records content saved (``CRMStore``, read from its memory, ``CRMMemory``), in the shapes the
/// iPad app gives.
struct VeevaDataAnswers {
    let store: CRMStore

    /// `getDataForObjectV2(<Object>),[objId(<id>),]fieldName(<field>)` (and V3):
    /// `{success: true, <Object>: {<field>: value}}`, names as the request wrote them; from the
    /// records in memory, with `currentSlide` the slide on screen.
    static func objectField(_ request: VeevaRequest, in snapshot: CRMMemory.Snapshot, currentSlide: String?) -> JSONValue {
        let function = request.function
        let object = request.subject.trimmingSpaces()
        guard let field = request.argument("fieldName")?.trimmingSpaces(), !field.isEmpty else {
            return VeevaModule.failure(function, "no fieldName")
        }
        let names = CRMObjects.names(for: object)
        guard let records = snapshot.records(names)?.records else {
            return VeevaModule.failure(function, code: VeevaModule.noObjectAccess, "no access to \(object)")
        }
        let record: [String: JSONValue]?
        if let id = request.argument("objId")?.trimmingSpaces(), !id.isEmpty {
            record = records.first { CRMRecord.id(of: $0) == id }
            guard record != nil else { return VeevaModule.failure(function, "no \(object) record '\(id)' in the CRM data set") }
        } else if let id = snapshot.current.first(where: { $0.key.lowercased() == object.lowercased() })?.value {
            record = records.first { CRMRecord.id(of: $0) == id }
        } else if object.lowercased() == "keymessage" || names.contains(where: { $0.lowercased().hasPrefix("key_message") }) {
            record = keyMessageOnScreen(records, currentSlide: currentSlide)
        } else {
            record = nil
        }
        guard let record else { return VeevaModule.failure(function, "no current \(object) in the CRM data set") }
        // A field some records of the object have and this one lacks reads as "".
        guard let value = CRMRecord.value(field, in: record) else {
            guard records.contains(where: { CRMRecord.value(field, in: $0) != nil }) else {
                return VeevaModule.failure(function, code: VeevaModule.noFieldAccess, "no access to \(object).\(field)")
            }
            return .object(["success": true, object: .object([field: ""])])
        }
        return .object(["success": true, object: .object([field: value])])
    }

    /// The key message record whose media file name is the key message on screen.
    private static func keyMessageOnScreen(_ records: [[String: JSONValue]], currentSlide: String?) -> [String: JSONValue]? {
        guard let slide = currentSlide else { return nil }
        let keyMessage = String(slide.prefix { $0 != "/" })
        return records.first { record in
            let file =
                (CRMRecord.value("Media_File_Name_vod__c", in: record) ?? CRMRecord.value("media_file_name__v", in: record))?
                .stringValue ?? ""
            return file == keyMessage + ".zip" || file == keyMessage
        }
    }

    /// `queryObject(<object>),fields(a,b),[where(…),][sort(…),][limit(n),]cb(result)`:
    /// `{success: true, record_count: N, <object>: [{a:…, b:…}]}`, from the records in memory.
    static func query(_ request: VeevaRequest, in snapshot: CRMMemory.Snapshot) -> JSONValue {
        let function = request.function
        let object = request.subject.trimmingSpaces()
        let fields = (request.argument("fields") ?? "").split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        guard !object.isEmpty, !fields.isEmpty else { return VeevaModule.failure(function, "an object and fields are needed") }
        let clause: VeevaWhere
        do {
            clause = try VeevaWhere.parse(request.argument("where") ?? "")
        } catch {
            return VeevaModule.failure(function, error.description)
        }
        let sort: [(field: String, descending: Bool)]
        switch Self.sortOrder(request.argument("sort")) {
        case .success(let order): sort = order
        case .failure(let error): return VeevaModule.failure(function, error.reason)
        }
        var limit = Int.max
        if let text = request.argument("limit")?.trimmingSpaces(), !text.isEmpty {
            guard let number = Int(text), number >= 0 else { return VeevaModule.failure(function, "limit '\(text)' is not a number") }
            limit = number
        }
        guard let records = snapshot.records([object])?.records else {
            return VeevaModule.failure(function, code: VeevaModule.noObjectAccess, "no access to \(object)")
        }
        if !records.isEmpty, let missing = fields.first(where: { field in !records.contains { CRMRecord.value(field, in: $0) != nil } }) {
            return VeevaModule.failure(function, code: VeevaModule.noFieldAccess, "no access to \(object).\(missing)")
        }
        var matching = records.filter(clause.matches)
        matching.sort { left, right in
            for key in sort {
                let order = VeevaWhere.compare(
                    CRMRecord.value(key.field, in: left), .text(CRMRecord.value(key.field, in: right)?.textValue ?? ""))
                if order == .orderedSame || order == nil { continue }
                return (order == .orderedAscending) != key.descending
            }
            return (CRMRecord.id(of: left) ?? "") < (CRMRecord.id(of: right) ?? "")
        }
        let rows: [JSONValue] = matching.prefix(limit).map { record in
            var row: [String: JSONValue] = [:]
            for field in fields { if let value = CRMRecord.value(field, in: record) { row[field] = value } }
            return .object(row)
        }
        return .object(["success": true, "record_count": .int(rows.count), object: .array(rows)])
    }

    struct SortError: Error { var reason: String }

    /// `sort(["name__v, DESC", "status__v, ASC"])` (JSON) or `sort(order__v,asc)`.
    static func sortOrder(_ text: String?) -> Result<[(field: String, descending: Bool)], SortError> {
        guard let text = text?.trimmingSpaces(), !text.isEmpty else { return .success([]) }
        var items: [String]
        if text.hasPrefix("[") {
            guard let array = (try? JSONValue.parse(text))?.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                return .failure(SortError(reason: "sort '\(text)' is not understood"))
            }
            items = array.compactMap(\.stringValue)
        } else {
            items = [text]
        }
        var order: [(field: String, descending: Bool)] = []
        for item in items {
            let parts = item.split(separator: ",").map { String($0).trimmingSpaces() }
            guard let field = parts.first, !field.isEmpty, parts.count <= 2 else {
                return .failure(SortError(reason: "sort '\(item)' is not understood"))
            }
            let direction = parts.count == 2 ? parts[1].lowercased() : "asc"
            guard direction == "asc" || direction == "desc" else {
                return .failure(SortError(reason: "sort direction '\(parts[1])' is not understood"))
            }
            order.append((field, direction == "desc"))
        }
        return .success(order)
    }

    /// `saveObjectV2(<object>),[updateCurrentRecord(),]value(<JSON>),callback(<name>)` (behind
    /// `createRecord`, `updateRecord`, `updateCurrentRecord`), and `createActivityLine()`:
    /// `{success: true, objectId, operation}`.
    func save(_ request: VeevaRequest, context: BridgeContext, object fixed: String? = nil) async throws -> JSONValue {
        let function = request.function
        let object = fixed ?? request.subject.trimmingSpaces()
        guard !object.isEmpty else { return VeevaModule.failure(function, "no object named") }
        guard let text = request.argument("value"), let values = (try? JSONValue.parse(text))?.objectValue else {
            return VeevaModule.failure(function, "value(…) is not a JSON object")
        }
        let presentation = try context.currentPresentation()
        let current = try await store.prepare(presentation).current
        var recordId = values["IdNumber"].flatMap { $0.stringValue ?? $0.intValue.map(String.init) }
        if request.has("updateCurrentRecord") {
            let keyword = CRMObjects.keywords.first { $0.value.contains { $0.lowercased() == object.lowercased() } }?.key ?? object
            guard let id = current.first(where: { $0.key.lowercased() == keyword || $0.key.lowercased() == object.lowercased() })?.value
            else { return VeevaModule.failure(function, "no current \(object) record in the CRM data set") }
            recordId = id
        }
        let saved = try await store.save(
            presentationId: presentation.id, object: object, recordId: recordId, fields: values,
            sessionId: context.viewer.latestState.sessionId)
        return ["success": true, "objectId": .string(saved.id), "operation": .string(saved.operation)]
    }
}

extension JSONValue {
    /// The value as text for ordering (strings as they are, numbers and booleans written out).
    var textValue: String? {
        switch self {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        default: return nil
        }
    }
}
