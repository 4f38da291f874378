import Foundation
import GRDB
import Synchronization
import Testing

@testable import StoryBridge

/// A recording command of a test: `note` stores `text` in a table the test made; `fail: true`
/// makes its write throw after inserting, so the row must not stay.
private struct NotesModule: BridgeModule {
    let name = "Notes"
    let deadline: CommandDeadline

    struct Refused: Error, LocalizedError {
        var errorDescription: String? { "the note was refused" }
    }

    var commands: CommandTable {
        BridgeCommand.recording("note", deadline: deadline) { request, context in
            let text = try request.string("text")
            let fails = try request.member("fail") == .bool(true)
            return PreparedRecord(database: context.sessions.store.database, data: ["text": .string(text)]) { db in
                try db.execute(sql: "INSERT INTO note (text) VALUES (?)", arguments: [text])
                if fails { throw Refused() }
            }
        }
    }
}

/// Counts the transactions a database commits.
private final class CommitCounter: TransactionObserver, Sendable {
    let count = Mutex(0)
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

/// The records a page sends together are committed in one transaction and answered in order.
@Suite("record runs")
struct RecordRunTests {
    /// A host with the notes table, whose database writer is held until the test lets it go, and a
    /// dispatcher of its viewer's frames.
    final class HeldHost: Sendable {
        let host: StoryBridgeHost
        let dispatcher: PageConnection
        let outbox = Outbox()
        fileprivate let commits = CommitCounter()
        private let writer = DispatchSemaphore(value: 0)

        init(notesDeadline: CommandDeadline = .bridgeDefault) async throws {
            let presentation = try TemporaryPresentation.threeSlides().load()
            let (host, viewer) = await makeHost(presentation: presentation)
            self.host = host
            try host.bridge.register(NotesModule(deadline: notesDeadline))
            try await host.database.pool.write { db in
                try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL UNIQUE)")
            }
            let outbox = self.outbox
            dispatcher = PageConnection(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
            host.database.pool.add(transactionObserver: commits)
            // Holds the writer until `releaseWriter`.
            host.database.holdWriter(until: writer)
        }

        /// Dispatches `first`, waits until its first request's write waits for the held writer (so
        /// the page's worker is held there), dispatches `then`, lets the writer go, and returns
        /// once every answer is out.
        func send(_ first: String, then: String) async throws {
            try await withThrowingDiscardingTaskGroup { group in
                // The writer goes once `then` is dispatched, or when the wait below fails: the
                // group waits for its tasks as it ends, and those wait for the writer.
                defer { writer.signal() }
                await dispatcher.dispatch(frame: first) { work in group.addTask { await work() } }
                try await waitUntil { self.host.database.writesWaiting >= 1 }
                await dispatcher.dispatch(frame: then) { work in group.addTask { await work() } }
            }
            await dispatcher.drained()
        }

        func releaseWriter() { writer.signal() }

        var transactions: Int { commits.count.withLock { $0 } }

        func notes() throws -> [String] {
            try host.database.pool.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY text") }
        }
    }

    static func request(_ command: String, _ data: String, guid: String) -> String {
        #"{"Command":"\#(command)","Data":\#(data),"GUID":"\#(guid)"}"#
    }

    @Test("consecutive records of a page share one commit; each is answered once, in the order sent, after it")
    func sharedCommit() async throws {
        let held = try await HeldHost()
        var requests = (1...6).map { Self.request("setCustomEvent", #"{"key":"k\#($0)","value":"v\#($0)"}"#, guid: "set-\($0)") }
        requests.append(Self.request("getCustomEventByKey", #"{"key":"k4"}"#, guid: "get"))
        requests.append(Self.request("deleteCustomEventByKey", #"{"key":"k1"}"#, guid: "delete"))
        requests.append(Self.request("setSessionComplete", "{}", guid: "complete"))
        // The first record waits alone for the held writer; the five behind it, queued meanwhile,
        // go as one run; the read ends that run, and the last two records make a run of their own.
        try await held.send(requests[0], then: "[" + requests.dropFirst().joined(separator: ",") + "]")

        #expect(held.outbox.guids == (1...6).map { "set-\($0)" } + ["get", "delete", "complete"])
        for message in held.outbox.all {
            #expect(message["Status"]?.stringValue == "Success", "\(message.jsonString())")
        }
        #expect(held.outbox.answers(to: "get").first?["Data"]?["value"]?.stringValue == "v4")
        #expect(held.outbox.answers(to: "delete").first?["Data"]?["key"]?.stringValue == "k1")
        #expect(held.transactions == 3)  // one commit each before record runs: 8
        let store = held.host.analytics
        let session = try #require(await held.host.viewers.viewer(id: "viewer-1").latestState.sessionId)
        let events = try await store.customEvents(sessionId: session)
        #expect(events.map(\.key) == ["k2", "k3", "k4", "k5", "k6"])
        #expect(try await store.customEventValue(sessionId: session, key: "k1") == nil)
        #expect(try await store.session(id: session)?.complete == true)
    }

    @Test("a record that fails is answered alone: the others of its run are committed and answered")
    func oneFails() async throws {
        let held = try await HeldHost()
        let frame =
            "["
            + [
                Self.request("note", #"{"text":"a"}"#, guid: "n2"),
                Self.request("note", #"{"text":"b","fail":true}"#, guid: "n3"),
                Self.request("note", #"{"wrong":1}"#, guid: "n4"),
                Self.request("note", #"{"text":"a"}"#, guid: "n5"),
                Self.request("note", #"{"text":"c"}"#, guid: "n6"),
            ].joined(separator: ",") + "]"
        try await held.send(Self.request("note", #"{"text":"first"}"#, guid: "n1"), then: frame)

        #expect(held.outbox.guids == ["n1", "n2", "n3", "n4", "n5", "n6"])
        func status(_ guid: String) -> (String?, Int?) {
            let answer = held.outbox.answers(to: guid).first
            return (answer?["Status"]?.stringValue, answer?["ErrorCode"]?.intValue)
        }
        #expect(status("n1") == ("Success", 200))
        #expect(status("n2") == ("Success", 200))
        #expect(status("n3") == ("Failure", 500))
        #expect(held.outbox.answers(to: "n3").first?["ErrorMessage"]?.stringValue?.contains("the note was refused") == true)
        #expect(status("n4") == ("Failure", 400))
        // A second "a" breaks the table's UNIQUE constraint: a failure of that write alone.
        #expect(status("n5") == ("Failure", 500))
        #expect(status("n6") == ("Success", 200))
        #expect(try held.notes() == ["a", "c", "first"])
    }

    @Test("a run stuck past its deadline is answered 504, once per request, and the page's later requests go on")
    func deadline() async throws {
        let held = try await HeldHost(notesDeadline: .after(.milliseconds(200)))
        let frame =
            "["
            + [
                Self.request("note", #"{"text":"x1"}"#, guid: "x1"),
                Self.request("note", #"{"text":"x2"}"#, guid: "x2"),
                Self.request("note", #"{"text":"x3"}"#, guid: "x3"),
                Self.request("getCurrentSlideName", "{}", guid: "name"),
            ].joined(separator: ",") + "]"
        await withDiscardingTaskGroup { group in
            await held.dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            // The writer stays held: x1 times out alone, then x2 and x3 as one run, then the name.
            try? await waitUntil { held.outbox.guids.contains("name") }
            held.releaseWriter()
            // The late commits are not answered a second time.
            try? await waitUntil { (try? held.notes().count) == 3 }
        }
        await held.dispatcher.drained()
        #expect(held.outbox.guids == ["x1", "x2", "x3", "name"])
        for guid in ["x1", "x2", "x3"] {
            #expect(held.outbox.answers(to: guid).first?["ErrorCode"]?.intValue == 504)
        }
        #expect(held.outbox.answers(to: "name").first?["Data"]?["slide"]?.stringValue == "index.html")
    }
}

/// Polls `condition` every 2 ms for up to 10 s.
private func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw CancellationError() }
        try await Task.sleep(for: .milliseconds(2))
    }
}
