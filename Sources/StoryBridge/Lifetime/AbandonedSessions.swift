import Foundation
import GRDB

extension AnalyticsStore {
    /// Finishes sessions nobody holds: unfinished (state 0, 3 or 4), unchanged since before
    /// `cutoff`, not the session of a viewer in memory (`active`) nor of one kept in the database.
    /// They are left by a run that was killed, or by a tab that opened another presentation and
    /// never came back. Each is saved (state 1, `endedBy` `timeout`) with its recorded slide views
    /// as its duration, and queued for upload. Returns their ids, at most `limit` per call.
    func finishAbandonedSessions(changedBefore cutoff: Date, excluding active: Set<String>, limit: Int = 500) async throws
        -> [String]
    {
        let stamp = AnalyticsFormat.timestamp(cutoff)
        let unfinished = SessionState.allCases.filter(\.isUnfinished).map(\.rawValue)
        let candidates = try await pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM session
                    WHERE state IN (\(unfinished.map(String.init).joined(separator: ","))) AND updated < ?
                      AND id NOT IN (SELECT sessionId FROM viewer WHERE sessionId IS NOT NULL)
                    ORDER BY updated LIMIT ?
                    """, arguments: [stamp, limit + active.count])
        }
        var finished: [String] = []
        for id in candidates where !active.contains(id) && finished.count < limit {
            try await setState(.saved, sessionId: id, endedBy: .timeout)
            finished.append(id)
        }
        return finished
    }
}
