import Foundation
import GRDB

/// `storybridge audit export` (docs/design/TRUST.md 4.4): the log's entries between two bounds,
/// with their positions, as CSV (RFC 4180) or a JSON array.
///
/// One row (one array element) per entry, as stored: an entry of a group-commit transaction of
/// several writes is one row of kind `writes` with empty deck columns, its `payload` the JSON text
/// `{"writes":[…]}` whose elements carry each write's `kind`, `presentationId`,
/// `presentationRevision`, `manifestHash`, `signed` and `changes` (``AuditEntry/writes()`` reads
/// both forms).
package struct AuditExport: Sendable {
    /// One end of the range: an entry's position, or a time (`at`, host time, inclusive).
    package enum Bound: Sendable, Hashable {
        case position(Int)
        case time(Date)

        /// `#POS` or an ISO 8601 time (`2026-11-27T10:00:00Z`, fractions allowed); `nil` otherwise.
        package init?(_ text: String) {
            if text.hasPrefix("#") {
                guard let position = Int(text.dropFirst()), position >= 1 else { return nil }
                self = .position(position)
            } else if let date = AnalyticsFormat.date(text) ?? ISO8601DateFormatter().date(from: text) {
                self = .time(date)
            } else {
                return nil
            }
        }
    }

    /// The output form.
    package enum Format: String, Sendable, CaseIterable {
        case csv, json
    }

    /// The columns, in order.
    package static let columns = [
        "segment", "position", "at", "kind", "presentationId", "presentationRevision", "manifestHash", "signed", "previousHash", "hash",
        "payload",
    ]

    /// The database file.
    package let file: URL

    package init(file: URL) {
        self.file = file
    }

    /// Writes the entries from `from` to `to` (both inclusive; the log's ends when `nil`) to `output`
    /// in `format`, a chunk at a time; returns how many.
    @discardableResult
    package func export(from: Bound?, to: Bound?, format: Format, output: (String) -> Void) throws(AuditVerifyError) -> Int {
        guard FileManager.default.fileExists(atPath: file.path) else { throw .noDatabase(file.path) }
        do {
            let queue = try AuditVerifier.openForReading(file)
            return try queue.read { db throws -> Int in
                guard try db.tableExists(AuditEntry.databaseTableName) else { throw AuditVerifyError.noLog(file.path) }
                var request = AuditEntry.order(AuditEntry.CodingKeys.position)
                switch from {
                case .position(let position): request = request.filter(AuditEntry.CodingKeys.position >= position)
                case .time(let date): request = request.filter(AuditEntry.CodingKeys.at >= AnalyticsFormat.timestamp(date))
                case nil: break
                }
                switch to {
                case .position(let position): request = request.filter(AuditEntry.CodingKeys.position <= position)
                case .time(let date): request = request.filter(AuditEntry.CodingKeys.at <= AnalyticsFormat.timestamp(date))
                case nil: break
                }
                let entries = try request.fetchCursor(db)
                var count = 0
                switch format {
                case .csv: output(Self.columns.joined(separator: ",") + "\r\n")
                case .json: output("[")
                }
                while let entry = try entries.next() {
                    switch format {
                    case .csv: output(Self.csvLine(entry))
                    case .json: output((count == 0 ? "\n" : ",\n") + entry.json.jsonString())
                    }
                    count += 1
                }
                if format == .json { output(count == 0 ? "]\n" : "\n]\n") }
                return count
            }
        } catch let error as AuditVerifyError {
            throw error
        } catch {
            throw .storage(file.path, "\(error)")
        }
    }

    /// One CSV record of `entry`, ending in CRLF (RFC 4180); a field with a comma, quote or line
    /// break is quoted, its quotes doubled.
    static func csvLine(_ entry: AuditEntry) -> String {
        let json = entry.json
        return columns.map { column -> String in
            let text: String
            switch json[column] {
            case .string(let value): text = value
            case .int(let value): text = String(value)
            default: text = ""
            }
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }
}
