import Foundation
import GRDB

/// A stored row that can no longer be read back as its record (a value the schema allows but the
/// record does not, such as an unknown state or a date or JSON that does not parse). Fetching it
/// fails with this error, naming the row, instead of skipping it or reading a default.
package struct CorruptRecordError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The table the row is in.
    package let table: String
    /// The row's id.
    package let id: String
    /// What could not be read.
    package let reason: String

    package init(table: String, id: String, reason: String) {
        self.table = table
        self.id = id
        self.reason = reason
    }

    package var description: String { "the stored \(table) record '\(id)' cannot be read: \(reason)" }
    package var errorDescription: String? { description }
}

/// A GRDB record of the host's database whose rows are read through ``readAll(_:_:)`` and
/// ``readOne(_:_:)``, so a row that does not decode becomes a ``CorruptRecordError`` naming it.
protocol StoredRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    /// The column that identifies a row in errors.
    static var idColumn: String { get }
}

extension StoredRecord {
    /// Every record the request selects; throws ``CorruptRecordError`` for the first row that does not decode.
    static func readAll(_ db: Database, _ request: QueryInterfaceRequest<Self>) throws -> [Self] {
        try Row.fetchAll(db, request.asRequest(of: Row.self)).map(decodeReporting)
    }

    /// The first record the request selects, if any; throws ``CorruptRecordError`` when it does not decode.
    static func readOne(_ db: Database, _ request: QueryInterfaceRequest<Self>) throws -> Self? {
        try Row.fetchOne(db, request.asRequest(of: Row.self)).map(decodeReporting)
    }

    /// The records a hot path selects with fixed SQL, through a cached prepared statement (no SQL
    /// generated or compiled per call); throws ``CorruptRecordError`` for the first row that does
    /// not decode.
    static func readAll(_ db: Database, cachedSQL sql: String, arguments: StatementArguments) throws -> [Self] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map(decodeReporting)
    }

    /// The first record that fixed SQL selects, through a cached prepared statement.
    static func readOne(_ db: Database, cachedSQL sql: String, arguments: StatementArguments) throws -> Self? {
        try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments).map(decodeReporting)
    }

    static func decodeReporting(_ row: Row) throws -> Self {
        do {
            return try Self(row: row)
        } catch {
            let id: DatabaseValue = row[idColumn]
            throw CorruptRecordError(
                table: databaseTableName, id: String.fromDatabaseValue(id) ?? id.description, reason: "\(error)")
        }
    }
}

/// A record that keeps its dates as ISO-8601 text with milliseconds (``AnalyticsFormat``), as the
/// analytics tables have since v2-analytics; a stored date that does not parse fails its fetch.
package protocol TimestampedAsText {}

/// A record that carries a ``RecordStamp`` in four columns of its own.
package protocol Stamped {
    var created: Date { get set }
    var timeZone: Double { get set }
    var latitude: Double { get set }
    var longitude: Double { get set }
}

extension Stamped {
    /// When, in which time zone and where it was made.
    package var stamp: RecordStamp {
        get { RecordStamp(created: created, timeZone: timeZone, latitude: latitude, longitude: longitude) }
        set { (created, timeZone, latitude, longitude) = (newValue.created, newValue.timeZone, newValue.latitude, newValue.longitude) }
    }
}

extension EncodableRecord where Self: TimestampedAsText {
    /// Dates are written as ``AnalyticsFormat/timestamp(_:)`` text.
    package static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { AnalyticsFormat.timestamp($0) }
    }
}

extension FetchableRecord where Self: TimestampedAsText {
    /// Dates are read with ``AnalyticsFormat/date(_:)``.
    package static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .custom { value in String.fromDatabaseValue(value).flatMap(AnalyticsFormat.date) }
    }
}
