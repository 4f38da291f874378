import GRDB

extension AnalyticsStore {
    /// What a dialect's content kept in `sessionId`, as the session export and the inspector show
    /// it: `records` (a Veeva deck's saved CRM records, an OCE deck's actions and tracked pages,
    /// oldest first, each as uploaded) and `oceStates` (an OCE deck's saved state, when it was last
    /// saved in this session).
    package func dialectRecords(sessionId: String) async throws -> (records: [JSONValue], oceStates: [JSONValue]) {
        try await database.read { db in
            (
                try CRMStore.savedRecords(sessionId: sessionId, db: db).map { $0.json },
                try OceStateStore.states(sessionId: sessionId, db: db).map { $0.json }
            )
        }
    }
}
