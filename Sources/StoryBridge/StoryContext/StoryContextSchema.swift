import Foundation
import GRDB

/// What migration `v10-story-context` adds: table `storyContextObject`, the current value of each
/// object of a presentation's Story context for a user, as JSON text that keeps integers and
/// floats apart (``StoryContextJSON``). An object without a row holds its starting value.
enum StoryContextSchema {
    static func create(_ db: Database) throws {
        try db.create(table: StoredStoryObject.databaseTableName) { table in
            table.column("presentationId", .integer).notNull()
            table.column("userId", .text).notNull()
            table.column("objectName", .text).notNull()
            table.column("value", .text).notNull()
            table.column("updated", .double).notNull()
            table.primaryKey(["presentationId", "userId", "objectName"])
        }
    }
}

/// One row of `storyContextObject`; `updated` in seconds since 1970.
struct StoredStoryObject: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord {
    static let databaseTableName = "storyContextObject"
    static let idColumn = CodingKeys.objectName.rawValue

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case presentationId, userId, objectName, value, updated
    }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    var presentationId: Int
    var userId: String
    var objectName: String
    var value: String
    var updated: Date

    /// The stored value; a row whose text is not a JSON object is reported as corrupt.
    func object() throws -> JSONValue {
        guard case .object? = try? JSONValue.parse(value) else {
            throw CorruptRecordError(table: Self.databaseTableName, id: objectName, reason: "the value is not a JSON object")
        }
        return try StoryContextJSON.parse(value)
    }
}
