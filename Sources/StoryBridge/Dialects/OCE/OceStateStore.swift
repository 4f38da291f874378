import Foundation
import GRDB

/// What OCE content saves with `CLMPlayer.saveState(state)`: one state per presentation and
/// viewer, the last save kept (table `oceState`, migration `v16-oce-state`). The OCE library has
/// no call to read it back, so it is never pushed back to the page; it is shown in the inspector
/// and the session export, and uploaded with the session it was last saved in.
package struct OceStateStore: Sendable {
    let database: StoryBridgeDatabase
    let clock: any HostClock

    package init(database: StoryBridgeDatabase, clock: any HostClock) {
        self.database = database
        self.clock = clock
    }

    /// One saved state.
    package struct Saved: Codable, FetchableRecord, PersistableRecord, Sendable, Hashable {
        package static let databaseTableName = "oceState"
        package var presentationId: Int
        package var viewerId: String
        /// The JSON text of what content passed.
        package var state: String
        package var sessionId: String?
        package var saved: Double

        /// `{presentationId, viewerId, sessionId, state, saved}`, `state` as content passed it.
        package var json: JSONValue {
            [
                "presentationId": .int(presentationId), "viewerId": .string(viewerId),
                "sessionId": sessionId.map(JSONValue.string) ?? .null,
                "state": (try? JSONValue.parse(state)) ?? .string(state),
                "saved": .string(AnalyticsFormat.timestamp(Date(timeIntervalSince1970: saved))),
            ]
        }

        /// The upload's entity id: one state per presentation and viewer.
        var entityId: String { "\(presentationId):\(viewerId)" }
    }

    /// Keeps `state` as the state of `presentationId` for `viewerId`, replacing the one before.
    package func save(presentationId: Int, viewerId: String, sessionId: String?, state: JSONValue) async throws {
        let row = Saved(
            presentationId: presentationId, viewerId: viewerId, state: state.jsonString(), sessionId: sessionId,
            saved: clock.now.timeIntervalSince1970)
        let decks = database.auditDecks
        let now = clock.now
        try await database.write { db in
            try row.save(db)
            let deck =
                try sessionId.map { try decks.deck(of: $0, presentationId: presentationId, db: db) }
                ?? AuditDeck(presentationId: presentationId)
            try AuditLog.append(
                db, in: database, kind: AuditKind.oceStateSaved, deck: deck,
                changes: [.upsert(row, conflict: ["presentationId", "viewerId"])], at: now)
        }
    }

    /// The state `viewerId` saved for `presentationId`, if any.
    package func state(presentationId: Int, viewerId: String) async throws -> Saved? {
        try await database.read { db in
            try Saved.filter(Column("presentationId") == presentationId && Column("viewerId") == viewerId).fetchOne(db)
        }
    }

    /// The states last saved in `sessionId` (the inspector, the session export).
    package func states(sessionId: String) async throws -> [Saved] {
        try await database.read { db in try Self.states(sessionId: sessionId, db: db) }
    }

    /// The states last saved in `sessionId`, inside the caller's transaction (the upload).
    static func states(sessionId: String, db: Database) throws -> [Saved] {
        try Saved.filter(Column("sessionId") == sessionId).order(Column("saved")).fetchAll(db)
    }
}
