import Foundation

/// Why a CRM data set file was refused; each case names the file and the place of the fault.
package enum CRMDataSetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not JSON: the line and column of the fault.
    case notJSON(path: String, line: Int, column: Int, reason: String)
    /// The JSON does not follow the schema: the path of the member at fault (`objects.Account[1].Id`).
    case invalid(path: String, place: String, reason: String)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read the CRM data set '\(path)': \(reason)"
        case .notJSON(let path, let line, let column, let reason):
            return "the CRM data set '\(path)' is not JSON: \(reason) at line \(line), column \(column)"
        case .invalid(let path, let place, let reason): return "the CRM data set '\(path)' is refused at \(place): \(reason)"
        }
    }
}

/// A local CRM data set: the records a Veeva deck's data requests are answered from (schema in
/// docs/dialects/VEEVA-IMPLEMENTATION.md):
///
/// ```json
/// {
///   "current": {"Account": "001A", "Call": "C-1", "User": "U-1"},
///   "objects": {
///     "Account": [{"Id": "001A", "Name": "Dr. Ada"}],
///     "Key_Message_vod__c": [{"Id": "KM-1", "Media_File_Name_vod__c": "KM_A.zip"}]
///   }
/// }
/// ```
///
/// `objects` maps an object's API name to its records, each a JSON object with an id (`Id`, `ID`
/// or `id`). `current` maps a keyword of `getDataForObjectV2` (Account, TSF, User, Address, Call,
/// Presentation, KeyMessage, CallObjective) to the id of the current record; the current key
/// message is, without one, the record whose media file name is the key message on screen.
package struct CRMDataSet: Sendable, Hashable {
    /// Keyword → id of the current record.
    package var current: [String: String]
    /// Object API name → records.
    package var objects: [String: [[String: JSONValue]]]

    package init(current: [String: String] = [:], objects: [String: [[String: JSONValue]]] = [:]) {
        self.current = current
        self.objects = objects
    }

    /// Reads and checks the data set in `file`.
    package static func load(_ file: URL) throws(CRMDataSetError) -> CRMDataSet {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .unreadable(path: file.path, reason: SystemProblem(error).description)
        }
        return try parse(data, path: file.path)
    }

    /// Reads and checks a data set's bytes; `path` names it in errors.
    package static func parse(_ data: Data, path: String) throws(CRMDataSetError) -> CRMDataSet {
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, maxDepth: JSONValue.defaultMaxDepth)
        } catch let error as JSONParser.SyntaxError {
            let (line, column) = Self.position(of: error.offset, in: data)
            throw .notJSON(path: path, line: line, column: column, reason: error.reason)
        } catch {
            throw .notJSON(path: path, line: 1, column: 1, reason: "\(error)")
        }
        guard let top = value.objectValue else { throw .invalid(path: path, place: "the top level", reason: "must be a JSON object") }
        for key in top.keys where key != "current" && key != "objects" {
            throw .invalid(path: path, place: key, reason: "unknown member (a data set has 'current' and 'objects')")
        }
        var set = CRMDataSet()
        if let current = top["current"] {
            guard let members = current.objectValue else { throw .invalid(path: path, place: "current", reason: "must be an object") }
            for (keyword, id) in members {
                guard let text = id.stringValue ?? id.intValue.map(String.init) else {
                    throw .invalid(path: path, place: "current.\(keyword)", reason: "must be a record id (a string)")
                }
                set.current[keyword] = text
            }
        }
        if let objects = top["objects"] {
            guard let members = objects.objectValue else { throw .invalid(path: path, place: "objects", reason: "must be an object") }
            for (name, records) in members {
                guard let list = records.arrayValue else {
                    throw .invalid(path: path, place: "objects.\(name)", reason: "must be an array of records")
                }
                var checked: [[String: JSONValue]] = []
                var ids = Set<String>()
                for (index, record) in list.enumerated() {
                    let place = "objects.\(name)[\(index)]"
                    guard let fields = record.objectValue else { throw .invalid(path: path, place: place, reason: "must be an object") }
                    guard let id = CRMRecord.id(of: fields) else {
                        throw .invalid(path: path, place: place, reason: "has no id (Id, ID or id, a string)")
                    }
                    guard ids.insert(id).inserted else {
                        throw .invalid(path: path, place: place, reason: "repeats the id '\(id)'")
                    }
                    for (field, value) in fields where value.arrayValue != nil || value.objectValue != nil {
                        throw .invalid(path: path, place: "\(place).\(field)", reason: "a field holds a string, number, boolean or null")
                    }
                    checked.append(fields)
                }
                set.objects[name] = checked
            }
        }
        for (keyword, id) in set.current
        where CRMObjects.records(for: keyword, in: set.objects)?.contains(where: { CRMRecord.id(of: $0) == id }) != true {
            throw .invalid(
                path: path, place: "current.\(keyword)",
                reason: "no record with id '\(id)' among \(CRMObjects.names(for: keyword).joined(separator: ", "))")
        }
        return set
    }

    private static func position(of offset: Int, in data: Data) -> (Int, Int) {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

/// Where a Veeva delivery's CRM data set is: `veeva.json`'s `crmData`, else `crm-data.json`.
enum CRMDataSetFile {
    /// The data set's default file name in a delivery.
    static let defaultName = "crm-data.json"

    /// The data set file of the delivery in `root`, if it has one. A `crmData` that names a missing
    /// file is refused.
    package static func locate(in root: URL, entries: [String]) throws(PresentationFolderError) -> URL? {
        if entries.contains(VeevaDelivery.settingsFile) {
            let settingsFile = root.appendingPathComponent(VeevaDelivery.settingsFile)
            if let named = try VeevaSettings.read(settingsFile).crmData {
                let file = URL(fileURLWithPath: named, relativeTo: root).standardizedFileURL
                guard FileManager.default.isPlainFile(file) else {
                    throw .unreadable(path: settingsFile.path, reason: "crmData names '\(named)', which does not exist")
                }
                return file
            }
        }
        return entries.contains(defaultName) ? root.appendingPathComponent(defaultName) : nil
    }
}

/// A record's fields, read without regard to the case of their names (the libraries ask for
/// `ID` where a record has `Id`).
enum CRMRecord {
    /// The record's id.
    package static func id(of fields: [String: JSONValue]) -> String? {
        for key in ["Id", "ID", "id", "IdNumber"] {
            if let value = fields[key] { return value.stringValue ?? value.intValue.map(String.init) }
        }
        return nil
    }

    /// The value of `field`, matched exactly, else without regard to case; `nil` when absent.
    package static func value(_ field: String, in fields: [String: JSONValue]) -> JSONValue? {
        if let exact = fields[field] { return exact }
        if ["id", "idnumber"].contains(field.lowercased()), let id = id(of: fields) { return .string(id) }
        let lowered = field.lowercased()
        return fields.first { $0.key.lowercased() == lowered }?.value
    }
}

/// The objects behind `getDataForObjectV2`'s keywords, in Veeva CRM's and Vault CRM's names.
enum CRMObjects {
    static let keywords: [String: [String]] = [
        "account": ["Account", "account__v"],
        "tsf": ["TSF_vod__c", "tsf__v"],
        "user": ["User", "user__sys"],
        "address": ["Address_vod__c", "address__v"],
        "call": ["Call2_vod__c", "call2__v"],
        "presentation": ["Clm_Presentation_vod__c", "clm_presentation__v"],
        "keymessage": ["Key_Message_vod__c", "key_message__v"],
        "callobjective": ["Call_Objective_vod__c", "call_objective__v"],
    ]

    /// The object names a keyword (or an object's own name) stands for: the keyword itself first.
    package static func names(for keyword: String) -> [String] {
        [keyword] + (keywords[keyword.lowercased()] ?? [])
    }

    /// The records of the first object `keyword` stands for that the data set has.
    package static func records(for keyword: String, in objects: [String: [[String: JSONValue]]]) -> [[String: JSONValue]]? {
        for name in names(for: keyword) {
            if let records = objects[name] { return records }
            if let match = objects.first(where: { $0.key.lowercased() == name.lowercased() }) { return match.value }
        }
        return nil
    }
}
