import Foundation
import GRDB
import StoryBridgeTesting
import Synchronization
import Testing

@testable import StoryBridge

/// A record (`.recording`, 50 ms deadline) whose handler waits for the test's gate before it
/// writes anything: it cannot queue its write before its deadline.
private struct StalledRecordModule: BridgeModule {
    let name = "StalledRecord"
    let gate = Latch()
    var commands: CommandTable {
        BridgeCommand("stalledRecord", .recording(.after(.milliseconds(50)))) { _, _ in
            await gate.wait()
            return "late answer"
        }
    }
}

/// `.recording` requests of one page overlap: the next starts once the one before has queued its
/// write, so a burst shares a commit; answers still come in order, after their commits.
@Suite("Recording requests")
struct RecordingRequestTests {
    /// A dispatcher over a host whose database's writer is held until `release()`.
    final class HeldHost: Sendable {
        let host: StoryBridgeHost
        let dispatcher: FrameDispatcher
        let outbox = Outbox()
        let commits = GroupCommitTests.CommitCounter()
        private let gate = DispatchSemaphore(value: 0)

        init() async throws {
            let presentation = try TemporaryPresentation.threeSlides().load()
            let (host, viewer) = await makeHost(presentation: presentation)
            self.host = host
            dispatcher = FrameDispatcher(bridge: host.bridge, context: host.context(for: viewer)) { [outbox] in
                outbox.append($0)
            }
            host.database.pool.add(transactionObserver: commits)
            // Holds the writer queue (a GRDB dispatch queue, not a task) until released.
            host.database.pool.asyncWriteWithoutTransaction { [gate] _ in gate.wait() }
        }

        func release() { gate.signal() }

        var writesWaiting: Int { host.database.writesWaiting }
    }

    static func setEvent(_ key: String, _ value: String, guid: String) -> String {
        #"{"Command":"setCustomEvent","Data":{"key":"\#(key)","value":"\#(value)"},"GUID":"\#(guid)"}"#
    }

    @Test("a page's burst of records waits for one transaction together, and each is answered after it, in order")
    func burstSharesACommit() async throws {
        let held = try await HeldHost()
        let sets = (0..<20).map { Self.setEvent("k", "v\($0)", guid: "S\($0)") }
        let read = #"{"Command":"getCustomEventByKey","Data":{"key":"k"},"GUID":"G"}"#
        await withDiscardingTaskGroup { group in
            await held.dispatcher.dispatch(frame: "[" + (sets + [read]).joined(separator: ",") + "]") { work in
                group.addTask { await work() }
            }
            // Every record queued its write while the writer was held: one ordered request at a
            // time would have queued one.
            #expect(await eventually { held.writesWaiting == 20 })
            // Nothing is answered before its commit, and the read waits for the records.
            #expect(held.outbox.all.isEmpty)
            held.release()
            #expect(await eventually { held.outbox.answers(to: "G").count == 1 })
        }
        #expect(held.outbox.guids == (0..<20).map { "S\($0)" } + ["G"])
        #expect(held.outbox.all.allSatisfy { $0["Status"] == "Success" })
        // The read saw the last record of the burst.
        #expect(held.outbox.answers(to: "G").first?["Data"] == ["value": "v19"])
        #expect(held.commits.count.withLock { $0 } == 1)
        held.dispatcher.finish()
    }

    @Test("a record that fails before writing is answered in its turn, and the records around it are stored")
    func failureKeepsItsPlace() async throws {
        let held = try await HeldHost()
        let frame = [
            Self.setEvent("a", "1", guid: "A"),
            #"{"Command":"setCustomEvent","Data":{"value":"no key"},"GUID":"BAD"}"#,
            Self.setEvent("b", "2", guid: "B"),
        ]
        await withDiscardingTaskGroup { group in
            await held.dispatcher.dispatch(frame: "[" + frame.joined(separator: ",") + "]") { work in
                group.addTask { await work() }
            }
            #expect(await eventually { held.writesWaiting == 2 })
            // The failure may not overtake the record before it, still waiting for its commit.
            #expect(held.outbox.all.isEmpty)
            held.release()
            #expect(await eventually { held.outbox.all.count == 3 })
        }
        #expect(held.outbox.guids == ["A", "BAD", "B"])
        #expect(held.outbox.answers(to: "BAD").first?["ErrorCode"] == 400)
        #expect(held.outbox.answers(to: "B").first?["Status"] == "Success")
        let stored = try await held.host.database.read { db in
            try String.fetchAll(db, sql: "SELECT key FROM customEvent ORDER BY key")
        }
        #expect(stored == ["a", "b"])
        held.dispatcher.finish()
    }

    @Test("records stuck before their write are answered 504 at their deadlines, in order, and the page goes on")
    func stuckRecordsTimeOut() async throws {
        let clock = ManualHostClock()
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let bridge = Bridge(clock: clock, logger: quietLogger())
        for module in StoryBridgeHost.builtInModules() { try bridge.register(module) }
        let module = StalledRecordModule()
        try bridge.register(module)
        let outbox = Outbox()
        let dispatcher = FrameDispatcher(bridge: bridge, context: host.context(for: viewer)) { outbox.append($0) }
        let frame =
            #"[{"Command":"stalledRecord","GUID":"R1"},{"Command":"stalledRecord","GUID":"R2"},"#
            + #"{"Command":"getUserInfo","GUID":"U"}]"#
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            #expect(await clock.waitForSleepers(1))
            #expect(outbox.all.isEmpty)
            clock.advance(by: .milliseconds(50))
            #expect(await eventually { outbox.answers(to: "R1").count == 1 })
            // R2 started once R1 was answered: its deadline is its own.
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: .milliseconds(50))
            #expect(await eventually { outbox.answers(to: "U").count == 1 })
            module.gate.open()
        }
        #expect(outbox.guids == ["R1", "R2", "U"])
        #expect(outbox.answers(to: "R1").first?["ErrorCode"] == 504)
        #expect(outbox.answers(to: "R2").first?["ErrorCode"] == 504)
        // The late answers, once they came, were dropped.
        try await Task.sleep(for: .milliseconds(50))
        #expect(outbox.all.count == 3)
        dispatcher.finish()
    }

    @Test("thousands of pipelined records from one page are all stored and answered once, in order")
    func floodOfRecords() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let outbox = Outbox()
        let dispatcher = FrameDispatcher(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        let guids = (0..<2_000).map { "R\($0)" }
        await withDiscardingTaskGroup { group in
            for chunk in stride(from: 0, to: guids.count, by: 500) {
                let requests = guids[chunk..<chunk + 500].map { Self.setEvent($0, "v", guid: $0) }
                await dispatcher.dispatch(frame: "[" + requests.joined(separator: ",") + "]") { work in
                    group.addTask { await work() }
                }
            }
        }
        #expect(outbox.guids == guids)
        #expect(outbox.all.allSatisfy { $0["Status"] == "Success" })
        let stored = try await host.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM customEvent") }
        #expect(stored == 2_000)
        dispatcher.finish()
    }
}
