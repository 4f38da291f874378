import GRDB

/// The last step of `audit verify` (docs/design/TRUST.md 4.4, 4): each audited table's rows in the
/// live database compared by key with the rows the log rebuilt. Names edited rows (the columns that
/// differ, both values), deleted rows (rebuilt, not live) and inserted rows (live, never written by
/// the log).
enum AuditRows {
    /// The findings of comparing `live` with `rebuilt`; `writtenBy` names the entry that last wrote
    /// each rebuilt row.
    static func compare(live: Database, rebuilt: Database, writtenBy: [String: [String: Int]]) throws -> [AuditFinding] {
        var findings: [AuditFinding] = []
        for table in AuditedTable.all {
            let expected = try rows(of: table, in: rebuilt)
            let found = try rows(of: table, in: live)
            let written = writtenBy[table.name] ?? [:]
            for (key, row) in found.sorted(by: { $0.key < $1.key }) {
                guard let wanted = expected[key] else {
                    findings.append(AuditFinding(kind: .insertedRow, table: table.name, key: key, detail: "no entry of the log wrote it"))
                    continue
                }
                let differing = Set(row.keys).union(wanted.keys).sorted().filter { row[$0] != wanted[$0] }
                guard !differing.isEmpty else { continue }
                let detail = differing.map { "\($0) is \(describe(row[$0])), the log says \(describe(wanted[$0]))" }.joined(separator: "; ")
                findings.append(AuditFinding(kind: .editedRow, position: written[key], table: table.name, key: key, detail: detail))
            }
            for key in expected.keys.sorted() where found[key] == nil {
                findings.append(
                    AuditFinding(
                        kind: .deletedRow, position: written[key], table: table.name, key: key, detail: "the log wrote it; it is gone"))
            }
        }
        return findings
    }

    /// `column=value` of a row's key columns, joined by `, `.
    static func keyText(_ columns: [(String, DatabaseValue)]) -> String {
        columns.map { "\($0.0)=\(describe($0.1))" }.joined(separator: ", ")
    }

    private static func rows(of table: AuditedTable, in db: Database) throws -> [String: [String: DatabaseValue]] {
        var result: [String: [String: DatabaseValue]] = [:]
        let cursor = try Row.fetchCursor(db, sql: table.selectInScope)
        while let row = try cursor.next() {
            var values: [String: DatabaseValue] = [:]
            for (column, value) in row { values[column] = value }
            result[keyText(table.key.map { ($0, values[$0] ?? .null) })] = values
        }
        return result
    }

    private static func describe(_ value: DatabaseValue?) -> String {
        guard let value else { return "absent" }
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number): return "\(number)"
        case .string(let text): return "'\(text)'"
        case .blob(let data): return "x'\(data.auditHex)'"
        }
    }
}
