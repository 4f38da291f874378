import Foundation
import GRDB
import StoryBridge
import StoryBridgeTesting
import Testing

/// The records map onto the schema as earlier versions wrote it: a data folder from before
/// reads back as it was, and what is written now has the same column types.
@Suite("Stored format of the records")
struct StoredFormatTests {
    @Test("rows written by the hand-mapped store of earlier versions read back field for field")
    func earlierRowsReadBack() async throws {
        let database = try freshDatabase("sb-format")
        // The statements earlier versions ran, with the values they bound.
        try await database.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (id, presentationId, viewerId, userId, created, timeZone, latitude, longitude,
                                         address, duration, slidesCount, state, complete, updated)
                    VALUES ('s1', 7, 'v1', 'u1', '2026-11-22T03:04:05.678Z', 3.0, 55.75, 37.62, 'Moscow', 12, 1, 1, 1,
                            '2026-11-22T03:05:00.000Z')
                    """)
            try db.execute(
                sql: """
                    INSERT INTO slideView (id, sessionId, presentationId, slideName, userId, duration, navigation, cause,
                                           created, timeZone, latitude, longitude)
                    VALUES ('sv1', 's1', 7, 'index.html', 'u1', 12, 'in', 'go', '2026-11-22T03:04:05.678Z', 3.0, 55.75, 37.62)
                    """)
            try db.execute(
                sql: """
                    INSERT INTO deepLinkEvent (id, sessionId, presentationId, userId, direction, uri, source, parameters,
                                               created, timeZone, latitude, longitude)
                    VALUES ('d1', 's1', 7, 'u1', 'outbound', 'crm://?client=42', 'crm', '{"client":"42"}',
                            '2026-11-22T03:04:06.000Z', 3.0, 55.75, 37.62)
                    """)
            try db.execute(
                sql: """
                    INSERT INTO outbox (recordId, eventId, entityId, sessionId, body, bytes, status, queuedAt, nextAttemptAt)
                    VALUES ('story.content.session:s1', 'story.content.session', 's1', 's1', '{}', 2, 'queued', 1790000000.5, 0)
                    """)
            try db.execute(
                sql: "INSERT INTO tableEntry (tableId, id, body, created) VALUES (2, 'e1', '{\"_id\":\"e1\",\"n\":1.5}', 1790000000.25)")
            try db.execute(sql: "INSERT INTO dataTable (id, name, created) VALUES (2, 'Table 2', '2026-11-22T03:04:05.678Z')")
        }
        let store = AnalyticsStore(database: database)
        let session = try #require(try await store.session(id: "s1"))
        #expect(
            session.stamp
                == RecordStamp(
                    created: try #require(AnalyticsFormat.date("2026-11-22T03:04:05.678Z")), timeZone: 3, latitude: 55.75, longitude: 37.62)
        )
        #expect(session.state == .saved)
        #expect(session.complete)
        #expect(session.duration == 12)
        #expect(session.address == "Moscow")
        #expect(try await store.slideViews(sessionId: "s1").map(\.cause) == ["go"])
        let link = try #require(try await store.deepLinks(sessionId: "s1").first)
        #expect(link.direction == .outbound)
        #expect(link.parameters == ["client": "42"])
        let queued = try #require(try await store.outbox(status: .queued).first)
        #expect(queued.queuedAt == Date(timeIntervalSince1970: 1_790_000_000.5))
        #expect(queued.nextAttemptAt == Date(timeIntervalSince1970: 0))
        let tables = TablesStore(database: database)
        #expect(try await tables.entries(tableId: 2) == [["_id": "e1", "n": 1.5]])
        let listed = try await tables.tables()
        #expect(listed == [["id": 2, "name": "Table 2", "schema": [], "created": "2026-11-22T03:04:05.678Z"]], "\(listed)")
    }

    @Test("what the records write now has the column types earlier versions wrote")
    func columnTypes() async throws {
        let database = try freshDatabase("sb-format")
        let clock = ManualHostClock()
        let store = AnalyticsStore(database: database, clock: clock)
        let stamp = RecordStamp(at: clock.now, identity: HostIdentity())
        try await store.insert(
            SessionRecord(
                id: "s1", presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "", duration: 0, slidesCount: 0,
                state: .inProgress, complete: false))
        try await store.insert(
            DeepLinkRecord(
                id: "d1", sessionId: "s1", presentationId: 1, userId: "u", direction: .inbound, uri: "storyclm://content",
                source: "mail", parameters: ["a": "b"], stamp: stamp))
        try await store.setState(.saved, sessionId: "s1")
        _ = try await TablesStore(database: database, clock: clock).insert(tableId: 3, entries: [["n": 1]])
        let types = try await database.pool.read { db -> [String: String]? in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT typeof(s.created) AS created, s.created AS createdText, typeof(s.complete) AS complete,
                           typeof(s.state) AS state, typeof(d.parameters) AS parameters, d.parameters AS parametersText,
                           (SELECT typeof(queuedAt) FROM outbox LIMIT 1) AS queuedAt,
                           (SELECT typeof(nextAttemptAt) FROM outbox LIMIT 1) AS nextAttemptAt,
                           (SELECT typeof(created) FROM tableEntry LIMIT 1) AS entryCreated,
                           (SELECT typeof(created) FROM dataTable LIMIT 1) AS tableCreated
                    FROM session s JOIN deepLinkEvent d ON d.sessionId = s.id
                    """
            ).map { row in Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as String) }) }
        }
        let row = try #require(types)
        #expect(row["created"] == "text")
        #expect(row["createdText"] == AnalyticsFormat.timestamp(clock.now))
        #expect(row["complete"] == "integer")
        #expect(row["state"] == "integer")
        #expect(row["parameters"] == "text")
        #expect(try JSONValue.parse(row["parametersText"] ?? "") == ["a": "b"])
        #expect(row["queuedAt"] == "real")
        #expect(row["nextAttemptAt"] == "real")
        #expect(row["entryCreated"] == "real")
        #expect(row["tableCreated"] == "text")
    }

    @Test(
        "a timestamp read back writes the same text",
        arguments: [
            "2026-11-22T03:04:05.678Z", "2026-11-22T03:04:05.000Z", "2026-11-22T23:59:59.999Z", "1999-12-31T23:59:59.001Z",
        ])
    func timestampRoundTrip(text: String) throws {
        #expect(AnalyticsFormat.timestamp(try #require(AnalyticsFormat.date(text))) == text)
    }

    @Test("timestamps are UTC with milliseconds, rounded")
    func timestampFormat() {
        #expect(AnalyticsFormat.timestamp(Date(timeIntervalSince1970: 1_790_000_000)) == "2026-09-21T14:13:20.000Z")
        #expect(AnalyticsFormat.timestamp(Date(timeIntervalSince1970: 1_790_000_000.9996)) == "2026-09-21T14:13:21.000Z")
        #expect(AnalyticsFormat.timestamp(Date(timeIntervalSince1970: 1_790_000_000.0504)) == "2026-09-21T14:13:20.050Z")
    }
}
