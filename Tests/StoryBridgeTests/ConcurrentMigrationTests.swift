import Foundation
import GRDB
import Synchronization
import Testing

@testable import StoryBridge

/// Two openers of a database file that does not exist yet (a `serve` and a `sync` started together
/// on a new data folder) both bring it up to date without an error.
@Suite("Migrations of a new database file by two openers at once")
struct ConcurrentMigrationTests {
    @Test("two threads open a new file at once, 20 times: both succeed and every migration ran once")
    func twoOpenersTakeTurns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for round in 0..<20 {
            let file = folder.appendingPathComponent("round-\(round).sqlite")
            let failures = Mutex<[String]>([])
            // Separate threads, not tasks: opening is synchronous and both must run at the same time.
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    _ = try StoryBridgeDatabase(file: file)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            let database = try StoryBridgeDatabase(file: file)
            let applied = try database.pool.read { db in try StoryBridgeDatabase.migrator.appliedIdentifiers(db) }
            #expect(applied == Set(StoryBridgeDatabase.migrator.migrations), "round \(round)")
        }
    }
}
