import Foundation
import GRDB
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// The audit log of a `serve` child across SIGKILL, restarts and a restored database
/// (docs/design/TRUST.md 5): the head file, the start-up checks, health.
@Suite("audit log of a killed serve")
struct AuditKilledServeTests {
    private func arguments(_ data: URL) -> [String] {
        [demoFolder.path, "--port", "0", "--data-dir", data.path, "--log-level", "error", "--audit-checkpoint-every", "7"]
    }

    @Test("SIGKILL at random points during writes: each restart finds no gap, the chain verifies, every answered write is there")
    func killedAtRandomPoints() async throws {
        try await withScratchFolder("sb-audit-kill") { data in
            var answered: Set<String> = []
            // One data folder: each start checks what the previous kill left.
            for seed in [3, 17, 29, 41, 53, 67, 71, 83, 97, 101, 113, 127] as [UInt64] {
                var random = SplitMix64(state: seed)  // a fixed generator: every run kills at the same points
                let serve = try await ServeProcess.start(arguments(data))
                defer { try? FileManager.default.removeItem(at: serve.errorsFile) }
                let page = try await serve.connectViewer()
                #expect(await page.nextEvent(named: "hello") != nil)
                // A random number of writes answered one by one, then a burst in flight at the kill.
                for index in 0..<Int.random(in: 0...20, using: &random) {
                    let key = "s\(seed)-a\(index)"
                    if try await page.request("setCustomEvent", data: ["key": .string(key), "value": .int(index)]).status == .success {
                        answered.insert(key)
                    }
                }
                for index in 0..<Int.random(in: 1...40, using: &random) {
                    page.send(
                        BridgeRequest(
                            command: "setCustomEvent", data: ["key": .string("s\(seed)-b\(index)"), "value": .int(index)],
                            guid: "g\(index)"))
                }
                await killHard(serve.process)
                for response in page.received.withLock({ $0 }).compactMap({ BridgeResponse(json: $0) })
                where response.status == .success && response.guid.hasPrefix("g") {
                    answered.insert("s\(seed)-b\(response.guid.dropFirst())")
                }
                await page.close()
            }
            let last = try await ServeProcess.start(arguments(data))
            defer { try? FileManager.default.removeItem(at: last.errorsFile) }
            #expect(await last.interrupt() == 0)

            let verified = try await runStorybridge(["audit", "verify", "--data-dir", data.path])
            #expect(verified.status == 0, "\(verified.output) \(verified.errors)")
            let queue = try DatabaseQueue(path: DataDirectory(data).database.path)
            defer { try? queue.close() }
            let (stored, kinds, gaps) = try await queue.read { db in
                (
                    Set(try String.fetchAll(db, sql: "SELECT key FROM customEvent")),
                    try String.fetchAll(db, sql: "SELECT kind FROM auditEntry WHERE kind IN ('host.started', 'chain.gap')"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auditGap") ?? 0
                )
            }
            #expect(answered.isSubset(of: stored), "missing: \(answered.subtracting(stored).sorted())")
            #expect(kinds == Array(repeating: "host.started", count: 13))
            #expect(gaps == 0)
        }
    }

    @Test(
        "a database restored from an older copy: chain.gap recorded at start and shown by health; audit verify names it until acknowledged")
    func restoredDatabaseInHealth() async throws {
        try await withScratchFolder("sb-audit-restored") { data in
            let directory = DataDirectory(data)
            let copy = data.appendingPathComponent("older.sqlite")
            var serve = try await ServeProcess.start(arguments(data))
            var page = try await serve.connectViewer()
            #expect(await page.nextEvent(named: "hello") != nil)
            _ = try await page.request("setCustomEvent", data: ["key": "early", "value": 1])
            await page.close()
            #expect(await serve.interrupt() == 0)
            try? FileManager.default.removeItem(at: serve.errorsFile)
            do {
                let database = try DatabaseQueue(path: directory.database.path)
                try database.backup(to: try DatabaseQueue(path: copy.path))
                try database.close()
            }
            serve = try await ServeProcess.start(arguments(data))
            page = try await serve.connectViewer()
            #expect(await page.nextEvent(named: "hello") != nil)
            for index in 0..<5 { _ = try await page.request("setCustomEvent", data: ["key": .string("late\(index)"), "value": 1]) }
            await page.close()
            #expect(await serve.interrupt() == 0)
            try? FileManager.default.removeItem(at: serve.errorsFile)

            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.database.path + suffix) }
            try FileManager.default.copyItem(at: copy, to: directory.database)
            serve = try await ServeProcess.start(arguments(data))
            #expect(serve.errors.contains("warning: audit log: the database ends at position"), "\(serve.errors)")
            let health = try await httpGet("\(serve.baseURL)/__storybridge/health")
            #expect(health.status == 503)
            let document = try JSONValue.parse(health.body)
            let problems = document["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(problems.contains { $0.hasPrefix("audit log: entries lost or changed after they were committed") }, "\(problems)")
            #expect(document["audit"]?["gaps"]?.arrayValue?.count == 1)
            #expect(await serve.interrupt() == 0)
            try? FileManager.default.removeItem(at: serve.errorsFile)

            let verified = try await runStorybridge(["audit", "verify", "--data-dir", data.path])
            #expect(verified.status == 65)
            #expect(verified.output.hasPrefix("chain gap: position "), "\(verified.output)")
            // The operator takes note: recorded as chain.acknowledged, no longer a finding.
            let acknowledged = try await runStorybridge(["audit", "verify", "--acknowledge", "--data-dir", data.path])
            #expect(acknowledged.status == 65 && acknowledged.output.contains("acknowledged the chain gap at position "))
            let after = try await runStorybridge(["audit", "verify", "--data-dir", data.path])
            #expect(after.status == 0, "\(after.output)")
        }
    }
}
