import Foundation
import GRDB

/// The bytes of an entry's payload, `{"changes":[…],"detail":…}` in ``CanonicalJSON``'s form,
/// written straight from the changes: the same bytes `CanonicalJSON.encode` makes of
/// `["changes": changes.map(\.json), "detail": detail]`, without building that tree of values and
/// sorting its members on every durable write (the audit log's share of a write's cost,
/// docs/BENCHMARKS.md "The audit log's cost on writes").
enum AuditPayload {
    /// The payload of `changes` and, for entries of the log itself, `detail`.
    static func encode(changes: [AuditChange], detail: JSONValue?) throws(TrustFailure) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(96 + changes.count * 320)
        output.append(contentsOf: #"{"changes":["#.utf8)
        for (index, change) in changes.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            append(change, to: &output)
        }
        output.append(UInt8(ascii: "]"))
        if let detail {
            output.append(contentsOf: #","detail":"#.utf8)
            output.append(contentsOf: try CanonicalJSON.encode(detail))
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Checks that `deck`'s numbers fit the canonical form's integers, so that the part's members
    /// (``appendMembers(kind:deck:to:)``) can be written later without failing.
    static func checkMembers(of deck: AuditDeck) throws(TrustFailure) {
        for number in [deck.presentationId, deck.presentationRevision] {
            guard let number, number.magnitude > UInt(CanonicalJSON.integerLimit) else { continue }
            throw .notCanonical("the number \(number) is beyond the canonical form's integers")
        }
    }

    /// Appends a part's members after `changes` in a `writes` entry:
    /// `,"kind":…,"manifestHash":…,"presentationId":…,"presentationRevision":…,"signed":…}`, the
    /// deck's fields `null` when absent, `signed` 1 or 0 as the entry's column. The deck was checked
    /// by ``checkMembers(of:)`` when its part was made.
    static func appendMembers(kind: String, deck: AuditDeck, to output: inout [UInt8]) {
        output.append(contentsOf: #","kind":"#.utf8)
        JSONWriter.appendString(kind, to: &output)
        output.append(contentsOf: #","manifestHash":"#.utf8)
        if let hash = deck.manifestHash { JSONWriter.appendString(hash, to: &output) } else { output.append(contentsOf: "null".utf8) }
        output.append(contentsOf: #","presentationId":"#.utf8)
        appendInteger(deck.presentationId, to: &output)
        output.append(contentsOf: #","presentationRevision":"#.utf8)
        appendInteger(deck.presentationRevision, to: &output)
        output.append(contentsOf: #","signed":"#.utf8)
        appendInteger(deck.signed.map { $0 ? 1 : 0 }, to: &output)
        output.append(UInt8(ascii: "}"))
    }

    /// The payload of an entry of several writes: `{"writes":[part,…]}`, each part the object
    /// `{"changes":[…],"kind":…,"manifestHash":…,"presentationId":…,"presentationRevision":…,
    /// "signed":…}`, made by joining the parts' bytes encoded when they were staged: a part's
    /// payload without its closing brace, then its kind and deck (``appendMembers(kind:deck:to:)``,
    /// written here, only for entries of several parts). The same bytes `CanonicalJSON.encode`
    /// makes of that value (the members are in canonical order).
    static func writes(_ parts: [AuditPart]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(12 + parts.reduce(0) { $0 + $1.payload.count + 160 })
        output.append(contentsOf: #"{"writes":["#.utf8)
        for (index, part) in parts.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: part.payload.dropLast())
            appendMembers(kind: part.kind, deck: part.deck, to: &output)
        }
        output.append(contentsOf: "]}".utf8)
        return output
    }

    /// An integer (checked by ``checkMembers(of:)``), or `null`.
    private static func appendInteger(_ number: Int?, to output: inout [UInt8]) {
        guard let number else { return output.append(contentsOf: "null".utf8) }
        output.append(contentsOf: String(number).utf8)
    }

    /// One change: its members in canonical order (`conflict`, `key`, `op`, `replacing`, `row`,
    /// `table`), as ``AuditChange/json`` has them.
    private static func append(_ change: AuditChange, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        let upsert = change.operation == .upsert
        if upsert {
            output.append(contentsOf: #""conflict":"#.utf8)
            appendNames(change.conflict, to: &output)
            output.append(UInt8(ascii: ","))
        }
        if !change.key.isEmpty {
            output.append(contentsOf: #""key":"#.utf8)
            appendColumns(change.key, to: &output)
            output.append(UInt8(ascii: ","))
        }
        output.append(contentsOf: #""op":"#.utf8)
        JSONWriter.appendString(change.operation.rawValue, to: &output)
        if upsert {
            output.append(contentsOf: #","replacing":"#.utf8)
            appendNames(change.replacing, to: &output)
        }
        if !change.row.isEmpty {
            output.append(contentsOf: #","row":"#.utf8)
            appendColumns(change.row, to: &output)
        }
        output.append(contentsOf: #","table":"#.utf8)
        JSONWriter.appendString(change.table, to: &output)
        output.append(UInt8(ascii: "}"))
    }

    private static func appendNames(_ names: [String], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        for (index, name) in names.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(name, to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// Columns and their values, names sorted by their UTF-16 code units as the canonical form
    /// wants (the same as their bytes' order for the ASCII names columns have; compared as UTF-16
    /// when a name is not ASCII).
    private static func appendColumns(_ columns: [String: DatabaseValue], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        let ascii = columns.keys.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
        // For ASCII names String's own order (by scalars) is the code units' order.
        let names = ascii ? columns.keys.sorted() : columns.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
        for (index, name) in names.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(name, to: &output)
            output.append(UInt8(ascii: ":"))
            appendValue(columns[name] ?? .null, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// A column's value as ``AuditValue/json(_:)`` writes it.
    private static func appendValue(_ value: DatabaseValue, to output: inout [UInt8]) {
        switch value.storage {
        case .null: output.append(contentsOf: "null".utf8)
        case .int64(let number):
            // Beyond the form's integers, the number is carried as text (as AuditValue.json does).
            if number.magnitude <= UInt64(CanonicalJSON.integerLimit) {
                output.append(contentsOf: String(number).utf8)
            } else {
                JSONWriter.appendString(String(number), to: &output)
            }
        case .double(let number): JSONWriter.appendString("\(number)", to: &output)
        case .string(let text): JSONWriter.appendString(text, to: &output)
        case .blob(let data):
            output.append(contentsOf: #"{"blob":"#.utf8)
            JSONWriter.appendString(data.auditHex, to: &output)
            output.append(UInt8(ascii: "}"))
        }
    }
}
