import Foundation
import GRDB

/// A deep link that took part in a session: the inbound link the viewer arrived by, or the
/// outbound link content prepared for another app, recorded when the presentation closes (the
/// apps launch it then). Uploaded as `story.content.deeplinking.inbound` / `.outbound`.
public struct DeepLinkRecord: Sendable, Hashable {
    /// Which way the link goes.
    public enum Direction: String, Sendable, Hashable {
        case inbound, outbound

        /// The upload event id of a record going this way.
        public var eventId: String {
            switch self {
            case .inbound: return UploadEventId.deepLinkInbound
            case .outbound: return UploadEventId.deepLinkOutbound
            }
        }
    }

    public var id: String
    public var sessionId: String
    public var presentationId: Int
    public var userId: String
    public var direction: Direction
    /// The whole link (`storyclm://content?...` inbound, `scheme://?k=v` outbound).
    public var uri: String
    /// Inbound: who sent the link (`source`, else `external`); outbound: the scheme.
    public var source: String
    public var parameters: [String: String]
    public var stamp: RecordStamp

    public init(
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
        self.stamp = stamp
    }

    public var json: JSONValue {
        [
            "id": .string(id), "sessionId": .string(sessionId), "presentationId": .int(presentationId),
            "userId": .string(userId), "direction": .string(direction.rawValue), "uri": .string(uri),
            "source": .string(source), "parameters": .object(parameters.mapValues(JSONValue.string)),
            "created": .string(AnalyticsFormat.timestamp(stamp.created)), "timeZone": .double(stamp.timeZone),
            "latitude": .double(stamp.latitude), "longitude": .double(stamp.longitude),
        ]
    }
}

extension AnalyticsStore {
    /// Records a deep link of a session.
    public func insert(_ link: DeepLinkRecord) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO deepLinkEvent (id, sessionId, presentationId, userId, direction, uri, source, parameters,
                                               created, timeZone, latitude, longitude)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    link.id, link.sessionId, link.presentationId, link.userId, link.direction.rawValue, link.uri, link.source,
                    JSONValue.object(link.parameters.mapValues(JSONValue.string)).jsonString(),
                    AnalyticsFormat.timestamp(link.stamp.created), link.stamp.timeZone, link.stamp.latitude, link.stamp.longitude,
                ])
        }
    }

    /// The deep links of a session, oldest first.
    public func deepLinks(sessionId: String) throws -> [DeepLinkRecord] {
        try pool.read { db in try Self.deepLinks(sessionId: sessionId, db: db) }
    }

    static func deepLinks(sessionId: String, db: Database) throws -> [DeepLinkRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM deepLinkEvent WHERE sessionId = ? ORDER BY created, rowid", arguments: [sessionId])
            .map { row in
                let parameters = (try? JSONValue.parse(row["parameters"] as String))?.objectValue?.compactMapValues(\.stringValue) ?? [:]
                return DeepLinkRecord(
                    id: row["id"], sessionId: row["sessionId"], presentationId: row["presentationId"], userId: row["userId"],
                    direction: DeepLinkRecord.Direction(rawValue: row["direction"]) ?? .inbound, uri: row["uri"],
                    source: row["source"], parameters: parameters, stamp: stamp(row))
            }
    }
}
