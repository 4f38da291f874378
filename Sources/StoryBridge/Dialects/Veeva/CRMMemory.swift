import Foundation
import Synchronization

/// The CRM records of each presentation in memory, a mirror of ``CRMStore``'s SQLite rows: data
/// requests are answered from it on the task that reads the connection (``VeevaModule``'s memory
/// answer), as StoryCLM's custom events are from theirs. A snapshot is trusted for
/// ``CRMMemory/freshFor`` after its data set's file was last looked at; after that the handler
/// looks again (a `stat`) and re-imports a changed file. Saves update it after their commit.
package final class CRMMemory: Sendable {
    /// One presentation's records.
    package struct Snapshot: Sendable {
        /// The data set file's stamp (size, date, path), or `none`.
        var stamp: String
        /// When the file was last looked at.
        var checkedAt: Date
        /// Keyword → id of the current record.
        package var current: [String: String]
        /// Lower-cased object name → its name as stored and its records.
        var objects: [String: Records]

        /// An object's records, under the name they were stored with.
        struct Records: Sendable {
            var name: String
            var records: [[String: JSONValue]]
        }

        /// The records of the first of `names` the snapshot has (names matched without case).
        package func records(_ names: [String]) -> (object: String, records: [[String: JSONValue]])? {
            for name in names {
                if let found = objects[name.lowercased()] { return (found.name, found.records) }
            }
            return nil
        }

        /// Makes `object` known with no records, unless it has some.
        mutating func declare(_ object: String) {
            if objects[object.lowercased()] == nil { objects[object.lowercased()] = Records(name: object, records: []) }
        }

        /// Puts `record` (by its id) into `object`'s records, replacing the one with the same id.
        mutating func put(_ record: [String: JSONValue], object: String) {
            var entry = objects[object.lowercased()] ?? Records(name: object, records: [])
            let id = CRMRecord.id(of: record)
            if let index = entry.records.firstIndex(where: { CRMRecord.id(of: $0) == id }) {
                entry.records[index] = record
            } else {
                entry.records.append(record)
            }
            objects[object.lowercased()] = entry
        }
    }

    /// How long a snapshot is used without looking at its data set's file again.
    static let freshFor: TimeInterval = 1

    private let snapshots = Mutex<[Int: Snapshot]>([:])

    package init() {}

    /// The snapshot of `presentationId`, if its file was looked at less than ``freshFor`` ago.
    package func fresh(_ presentationId: Int, now: Date) -> Snapshot? {
        snapshots.withLock { all in
            guard let snapshot = all[presentationId], now.timeIntervalSince(snapshot.checkedAt) < Self.freshFor else { return nil }
            return snapshot
        }
    }

    /// The snapshot of `presentationId` whatever its age.
    func any(_ presentationId: Int) -> Snapshot? {
        snapshots.withLock { $0[presentationId] }
    }

    func keep(_ snapshot: Snapshot, for presentationId: Int) {
        snapshots.withLock { $0[presentationId] = snapshot }
    }

    /// Marks the file of `presentationId` looked at, unchanged, at `now`.
    func touch(_ presentationId: Int, at now: Date) -> Snapshot? {
        snapshots.withLock { all in
            all[presentationId]?.checkedAt = now
            return all[presentationId]
        }
    }

    /// A saved record, once its write has committed.
    func saved(_ record: [String: JSONValue], object: String, presentationId: Int) {
        snapshots.withLock { $0[presentationId]?.put(record, object: object) }
    }
}
