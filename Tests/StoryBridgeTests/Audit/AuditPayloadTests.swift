import Foundation
import GRDB
import Testing

@testable import StoryBridge

/// The payload writer makes, straight from the changes, the bytes the canonical encoder makes of the
/// same changes as a tree of values: entries written before and after it verify alike.
@Suite("Audit payload bytes")
struct AuditPayloadTests {
    /// Every kind of change and value a payload holds.
    static let changes: [AuditChange] = [
        AuditChange(
            .insert, table: "session",
            row: [
                "id": "S-1".databaseValue, "presentationId": 7.databaseValue, "duration": DatabaseValue.null,
                "latitude": 52.520008.databaseValue, "longitude": (-0.1).databaseValue, "big": Int64.max.databaseValue,
                "negative": (-9_007_199_254_740_993 as Int64).databaseValue, "blob": Data([0, 1, 0xAB, 0xFF]).databaseValue,
                "text": "quote \" backslash \\ newline \n tab \t control \u{01} ünïcödé 🎉".databaseValue,
                "created": "2026-11-29T12:00:00.000Z".databaseValue,
            ]),
        AuditChange(
            .upsert, table: "customEvent", row: ["id": "E".databaseValue, "key": "k".databaseValue, "value": "v".databaseValue],
            conflict: ["sessionId", "key"], replacing: ["value", "created"]),
        AuditChange(.update, table: "session", key: ["id": "S-1".databaseValue], row: ["state": 2.databaseValue]),
        AuditChange(.delete, table: "customEvent", key: ["sessionId": "S-1".databaseValue, "key": "k".databaseValue]),
        // Names whose byte order and UTF-16 order differ, and names of one letter's case.
        AuditChange(
            .insert, table: "odd",
            row: [
                "\u{FF61}": 1.databaseValue, "\u{1F600}": 2.databaseValue, "B": 3.databaseValue, "a": 4.databaseValue, "": 5.databaseValue,
            ]),
        AuditChange(.upsert, table: "empty", conflict: [], replacing: []),
    ]

    @Test("each change alone, all together, with and without a detail: the canonical encoder's bytes")
    func sameBytes() throws {
        let details: [JSONValue?] = [nil, ["reason": "restart", "positions": [1, 2, 3], "nested": ["z": true, "a": .null]]]
        var cases = Self.changes.map { [$0] }
        cases.append(Self.changes)
        cases.append([])
        for changes in cases {
            for detail in details {
                var body: [String: JSONValue] = ["changes": .array(changes.map(\.json))]
                if let detail { body["detail"] = detail }
                let expected = try CanonicalJSON.encode(.object(body))
                let written = try AuditPayload.encode(changes: changes, detail: detail)
                #expect(
                    written == expected,
                    "\(String(decoding: written, as: UTF8.self))\nexpected\n\(String(decoding: expected, as: UTF8.self))")
            }
        }
    }

    @Test("a custom event's row image, written by hand, is the row GRDB's Codable encoding stores")
    func customEventImage() throws {
        let created = Date(timeIntervalSince1970: 1_796_000_000.123)
        let event = CustomEventRecord(
            id: "E-1", sessionId: "S-1", presentationId: 3, userId: "U", key: "k", value: "quote \" ü",
            stamp: RecordStamp(created: created, timeZone: 1.5, latitude: 52.52, longitude: -13.4))
        #expect(event.auditRow == (try event.databaseDictionary))
        #expect(event.auditRow["created"] == AnalyticsFormat.timestamp(created).databaseValue)
    }

    @Test("a detail outside the canonical form is refused, as before")
    func refusedDetail() {
        #expect(throws: TrustFailure.self) { try AuditPayload.encode(changes: [], detail: ["ratio": .double(0.5)]) }
    }
}
