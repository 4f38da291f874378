import Foundation
import GRDB

/// A deep link that took part in a session: the inbound link the viewer arrived by, or the
/// outbound link content prepared for another app, recorded when the presentation closes (the
/// apps launch it then). Uploaded as `story.content.deeplinking.inbound` / `.outbound`.
package struct DeepLinkRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText, Stamped {
    package static let databaseTableName = "deepLinkEvent"
    static let idColumn = CodingKeys.id.rawValue

    /// The columns; each property is its column (`parameters` is a JSON object of strings).
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case id, sessionId, presentationId, userId, direction, uri, source, parameters, created, timeZone, latitude, longitude
    }

    /// Which way the link goes.
    package enum Direction: String, Sendable, Hashable, Codable {
        case inbound, outbound

        /// The upload event id of a record going this way.
        package var eventId: String {
            switch self {
            case .inbound: return UploadEventId.deepLinkInbound
            case .outbound: return UploadEventId.deepLinkOutbound
            }
        }
    }

    package var id: String
    package var sessionId: String
    package var presentationId: Int
    package var userId: String
    package var direction: Direction
    /// The whole link (`storyclm://content?...` inbound, `scheme://?k=v` outbound).
    package var uri: String
    /// Inbound: who sent the link (`source`, else `external`); outbound: the scheme.
    package var source: String
    package var parameters: [String: String]
    package var created: Date
    package var timeZone: Double
    package var latitude: Double
    package var longitude: Double

    package init(
        id: String, sessionId: String, presentationId: Int, userId: String, direction: Direction, uri: String, source: String,
        parameters: [String: String], stamp: RecordStamp
    ) {
        self.id = id
        self.sessionId = sessionId
        self.presentationId = presentationId
        self.userId = userId
        self.direction = direction
        self.uri = uri
        self.source = source
        self.parameters = parameters
        self.created = stamp.created
        self.timeZone = stamp.timeZone
        self.latitude = stamp.latitude
        self.longitude = stamp.longitude
    }

    package var json: JSONValue {
        [
            "id": .string(id), "sessionId": .string(sessionId), "presentationId": .int(presentationId),
            "userId": .string(userId), "direction": .string(direction.rawValue), "uri": .string(uri),
            "source": .string(source), "parameters": .object(parameters.mapValues(JSONValue.string)),
            "created": .string(AnalyticsFormat.timestamp(created)), "timeZone": .double(timeZone),
            "latitude": .double(latitude), "longitude": .double(longitude),
        ]
    }
}

extension AnalyticsStore {
    /// Records a deep link of a session.
    package func insert(_ link: DeepLinkRecord) async throws {
        let decks = database.auditDecks
        let now = clock.now
        try await database.write { db in
            try link.insert(db)
            try AuditLog.append(
                db, in: self.database, kind: AuditKind.deepLinkRecorded,
                deck: decks.deck(of: link.sessionId, presentationId: link.presentationId, db: db),
                changes: [.insert(link)], at: now)
        }
    }

    /// The deep links of a session, oldest first.
    package func deepLinks(sessionId: String) async throws -> [DeepLinkRecord] {
        try await database.read { db in try Self.deepLinks(sessionId: sessionId, db: db) }
    }

    static func deepLinks(sessionId: String, db: Database) throws -> [DeepLinkRecord] {
        typealias Columns = DeepLinkRecord.CodingKeys
        return try DeepLinkRecord.readAll(
            db, DeepLinkRecord.filter(Columns.sessionId == sessionId).order(Columns.created, Column.rowID))
    }
}
