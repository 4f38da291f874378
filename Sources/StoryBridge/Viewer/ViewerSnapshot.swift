import Foundation
import GRDB

/// What a viewer that left memory keeps in the database (table `viewer`): everything a returning
/// tab needs to continue as before (history, navigation data, chrome flags, deep links, its
/// session), and since when it has been idle. Events queued for a page that never came back and
/// open prompts are not kept.
package struct ViewerSnapshot: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText {
    package static let databaseTableName = "viewer"
    static let idColumn = CodingKeys.id.rawValue

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case id, state, lastPageLoad, sessionId, idleSince
    }

    /// The viewer id its page sent.
    package var id: String
    /// Its navigation state (stored as JSON).
    package var state: ViewerState
    /// The page load it showed last, so a reconnect of that same page is not a new slide view.
    var lastPageLoad: String?
    /// Its analytics session (also in ``state``; a column of its own for queries).
    package var sessionId: String?
    /// When its last page connection closed: its last activity.
    package var idleSince: Date

    package init(id: String, state: ViewerState, lastPageLoad: String?, idleSince: Date) {
        self.id = id
        self.state = state
        self.lastPageLoad = lastPageLoad
        self.sessionId = state.sessionId
        self.idleSince = idleSince
    }
}

/// The viewers that left memory, in the database.
package final class ViewerStore: Sendable {
    package let database: StoryBridgeDatabase

    package init(database: StoryBridgeDatabase) {
        self.database = database
    }

    private typealias Column = ViewerSnapshot.CodingKeys

    /// Keeps `snapshot`, replacing the viewer's earlier one.
    package func save(_ snapshot: ViewerSnapshot) async throws {
        try await database.write { db in try snapshot.save(db) }
    }

    /// Takes the viewer `id` back out of the database, if it is there: the returning viewer lives
    /// in memory again and its row is deleted.
    func takeBack(id: String) async throws -> ViewerSnapshot? {
        guard let snapshot = try await snapshot(id: id) else { return nil }
        _ = try await database.write { db in try ViewerSnapshot.deleteOne(db, key: id) }
        return snapshot
    }

    /// The stored viewer `id`, if any.
    package func snapshot(id: String) async throws -> ViewerSnapshot? {
        try await database.pool.read { db in try ViewerSnapshot.readOne(db, ViewerSnapshot.filter(key: id)) }
    }

    /// Stored viewers that hold a session and have been idle since before `cutoff`, oldest first.
    func holdingSessions(idleBefore cutoff: Date, limit: Int = 500) async throws -> [ViewerSnapshot] {
        let stamp = AnalyticsFormat.timestamp(cutoff)
        return try await database.pool.read { db in
            try ViewerSnapshot.readAll(
                db,
                ViewerSnapshot.filter(Column.sessionId != nil && Column.idleSince < stamp).order(Column.idleSince).limit(limit))
        }
    }

    /// Forgets stored viewers idle since before `cutoff` that hold no session; returns how many.
    @discardableResult
    package func forget(idleBefore cutoff: Date) async throws -> Int {
        let stamp = AnalyticsFormat.timestamp(cutoff)
        return try await database.write { db in
            try ViewerSnapshot.filter(Column.sessionId == nil && Column.idleSince < stamp).deleteAll(db)
        }
    }

    /// How many viewers are stored.
    package func count() async throws -> Int {
        try await database.pool.read { db in try ViewerSnapshot.fetchCount(db) }
    }
}
