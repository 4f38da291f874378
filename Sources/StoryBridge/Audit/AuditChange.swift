import Foundation
import GRDB

/// One row change an audit entry carries (docs/design/TRUST.md 4.2): the row image after the
/// change, so a replay does not depend on the code that computed it.
///
/// - `insert`: the whole row.
/// - `upsert`: the whole row, inserted, or, when a row with the same `conflict` columns exists, only
///   its `replacing` columns set from it (SQLite's `ON CONFLICT … DO UPDATE`).
/// - `update`: the columns written (`row`) of the rows whose columns equal `key`.
/// - `delete`: the rows whose columns equal `key`.
///
/// `key` matches by equality on every column it names, and may match several rows (a restored
/// session's slide views moved to the session it continues).
package struct AuditChange: Sendable, Hashable {
    /// What the change does.
    package enum Operation: String, Sendable, Hashable {
        case insert, upsert, update, delete
    }

    package var operation: Operation
    package var table: String
    package var key: [String: DatabaseValue]
    package var row: [String: DatabaseValue]
    package var conflict: [String]
    package var replacing: [String]

    package init(
        _ operation: Operation, table: String, key: [String: DatabaseValue] = [:], row: [String: DatabaseValue] = [:],
        conflict: [String] = [], replacing: [String] = []
    ) {
        self.operation = operation
        self.table = table
        self.key = key
        self.row = row
        self.conflict = conflict
        self.replacing = replacing
    }

    /// `record` inserted.
    package static func insert(_ record: some EncodableRecord & TableRecord) throws -> AuditChange {
        AuditChange(.insert, table: type(of: record).databaseTableName, row: try record.databaseDictionary)
    }

    /// `record` written over the stored row with the same `key` columns (its other columns).
    package static func update(_ record: some EncodableRecord & TableRecord, key: [String] = ["id"]) throws -> AuditChange {
        var row = try record.databaseDictionary
        var keyValues: [String: DatabaseValue] = [:]
        for column in key { keyValues[column] = row.removeValue(forKey: column) ?? .null }
        return AuditChange(.update, table: type(of: record).databaseTableName, key: keyValues, row: row)
    }

    /// `record` inserted or, when one with the same `conflict` columns exists, its `replacing`
    /// columns set (every other column when `replacing` is `nil`).
    package static func upsert(
        _ record: some EncodableRecord & TableRecord, conflict: [String], replacing: [String]? = nil
    ) throws -> AuditChange {
        let row = try record.databaseDictionary
        return AuditChange(
            .upsert, table: type(of: record).databaseTableName, row: row, conflict: conflict,
            replacing: replacing ?? row.keys.filter { !conflict.contains($0) }.sorted())
    }

    /// The change as it is written in an entry's payload.
    var json: JSONValue {
        var members: [String: JSONValue] = ["op": .string(operation.rawValue), "table": .string(table)]
        if !key.isEmpty { members["key"] = .object(key.mapValues(AuditValue.json)) }
        if !row.isEmpty { members["row"] = .object(row.mapValues(AuditValue.json)) }
        if operation == .upsert {
            members["conflict"] = .array(conflict.map(JSONValue.string))
            members["replacing"] = .array(replacing.map(JSONValue.string))
        }
        return .object(members)
    }

    /// A change read back from a payload; `realColumns` names the columns of each table whose
    /// values are reals (written as text in the payload). Throws a description of what is wrong.
    init(json: JSONValue, realColumns: [String: Set<String>]) throws(AuditPayloadError) {
        guard let members = json.objectValue, let op = members["op"]?.stringValue, let operation = Operation(rawValue: op) else {
            throw AuditPayloadError("a change without a known op")
        }
        guard let table = members["table"]?.stringValue, let reals = realColumns[table] else {
            throw AuditPayloadError("a change of a table the log does not cover: \(members["table"]?.stringValue ?? "none")")
        }
        func values(_ name: String) throws(AuditPayloadError) -> [String: DatabaseValue] {
            guard let value = members[name] else { return [:] }
            guard let object = value.objectValue else { throw AuditPayloadError("'\(name)' is not an object") }
            var result: [String: DatabaseValue] = [:]
            for (column, value) in object {
                result[column] = try AuditValue.databaseValue(value, real: reals.contains(column))
            }
            return result
        }
        func names(_ name: String) -> [String] { members[name]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.init(
            operation, table: table, key: try values("key"), row: try values("row"), conflict: names("conflict"),
            replacing: names("replacing"))
        switch operation {
        case .insert where row.isEmpty, .upsert where row.isEmpty || conflict.isEmpty:
            throw AuditPayloadError("an \(op) without its row")
        case .update where key.isEmpty || row.isEmpty, .delete where key.isEmpty:
            throw AuditPayloadError("an \(op) without its key")
        default: break
        }
    }
}

/// A payload that cannot be replayed: not canonical JSON, or a change the replay cannot apply.
package struct AuditPayloadError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

/// How a column value is written in a payload: the canonical form carries integers, text, `null`
/// and nothing else, so a real is written as the text of its shortest exact decimal (read back
/// exactly), and a blob as `{"blob": hex}`.
enum AuditValue {
    static func json(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: return .null
        case .int64(let number):
            guard number.magnitude <= UInt64(CanonicalJSON.integerLimit) else { return .string(String(number)) }
            return .int(Int(number))
        case .double(let number): return .string("\(number)")
        case .string(let text): return .string(text)
        case .blob(let data): return ["blob": .string(data.auditHex)]
        }
    }

    static func databaseValue(_ value: JSONValue, real: Bool) throws(AuditPayloadError) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .int(let number): return real ? Double(number).databaseValue : number.databaseValue
        case .string(let text):
            guard real else { return text.databaseValue }
            guard let number = Double(text) else { throw AuditPayloadError("'\(text)' is not a real") }
            return number.databaseValue
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .object(let members):
            guard let hex = members["blob"]?.stringValue, let data = Data(auditHex: hex) else {
                throw AuditPayloadError("a value that is an object but not a blob")
            }
            return data.databaseValue
        case .double, .array: throw AuditPayloadError("a value of no column type")
        }
    }
}

extension Data {
    /// The bytes of lower- or upper-case hex text; `nil` when it is not hex.
    package init?(auditHex text: String) {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes as lower-case hex.
    package var auditHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
