import Foundation
import GRDB
import Synchronization
import Testing

@testable import StoryBridge

/// What writes of the group commit stage for their transaction's before-commit step
/// (`GroupCommit.stage`), independent of the audit log that uses it.
@Suite("group commit: staged items")
struct GroupCommitStagingTests {
    private struct Refused: Error {}

    /// A group commit on a fresh file with a `note` table; `step` is the before-commit step.
    private func commit(
        _ step: @escaping @Sendable (Database, [String]) throws -> Void
    ) throws -> (GroupCommit<String>, DatabasePool, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-group-stage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: folder.appendingPathComponent("test.sqlite").path)
        try pool.write { db in try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL)") }
        return (GroupCommit(pool: pool, beforeCommit: step), pool, folder)
    }

    @Test("the step gets the items of the writes that commit, once each, in order; none for a failed write")
    func itemsOfCommittedWrites() async throws {
        let steps = Mutex<[[String]]>([])
        let (group, pool, folder) = try commit { db, items in
            steps.withLock { $0.append(items) }
            try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [items.joined(separator: "+")])
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcomes = await group.writeEach([
            { _ in #expect(group.stage("a")) },
            { _ in
                #expect(group.stage("b"))
                throw Refused()
            },
            { _ in #expect(group.stage("c")) },
            { _ in },
        ])
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true, true])
        // "a" ran twice (together, then alone after "b" threw): staged once.
        #expect(steps.withLock { $0 } == [["a", "c"]])
        // A transaction whose writes staged nothing has no step; outside a write nothing is staged.
        _ = await group.writeEach([{ _ in }])
        #expect(steps.withLock { $0 }.count == 1)
        #expect(!group.stage("outside"))
        let notes = try await pool.read { db in try String.fetchAll(db, sql: "SELECT text FROM note") }
        #expect(notes == ["a+c"])
    }

    @Test("a step that throws rolls the transaction back: every write of it fails with that error")
    func stepFails() async throws {
        let (group, pool, folder) = try commit { _, _ in throw Refused() }
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcomes = await group.writeEach([
            { db in
                try db.execute(sql: "INSERT INTO note (text) VALUES ('x')")
                _ = group.stage("x")
            },
            { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('y')") },
        ])
        #expect(outcomes.allSatisfy { if case .failure(let error) = $0 { error is Refused } else { false } })
        let count = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") }
        #expect(count == 0)
    }
}
