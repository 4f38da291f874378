import Foundation
import StoryBridgeTesting
import Synchronization
import Testing

@testable import StoryBridge

/// An ordered command with a 50 ms deadline whose handler ignores cancellation and answers only
/// once the test opens its gate (long after the deadline).
private struct LateModule: BridgeModule {
    let name = "Late"
    let gate = Gate()
    var commands: CommandTable {
        BridgeCommand("late", .ordered(.after(.milliseconds(50)))) { _, _ in
            await gate.wait()
            return "late answer"
        }
    }
}

/// A concurrent command that answers once the test opens its gate.
private struct WaitingModule: BridgeModule {
    let name = "Waiting"
    let gate = Gate()
    var commands: CommandTable {
        BridgeCommand("wait", .concurrent(.unlimited)) { _, _ in
            await gate.wait()
            return "waited"
        }
    }
}

/// An ordered command that answers once the test opens its gate.
private struct GatedOrderedModule: BridgeModule {
    let name = "GatedOrdered"
    let gate = Gate()
    var commands: CommandTable {
        BridgeCommand("gated", .ordered(.unlimited)) { _, _ in
            await gate.wait()
            return "opened"
        }
    }
}

/// A command that awaits before it answers, as the built-in `go` or `setDeepLinkingOutboundScheme`
/// await the viewer, made the only way such a handler can be: `BridgeCommand(name) { async }`, an
/// ordered command with the bridge's default deadline. (Before, `BridgeCommand(name, .fromMemory)`
/// took such a handler too and ran it with no deadline; `AwaitingPolicy` has no memory case, and
/// `BridgeCommand.fromMemory`'s closure is synchronous, so that can no longer be written.)
private struct AwaitingMemoryModule: BridgeModule {
    let name = "AwaitingMemory"
    let gate = Gate()
    var commands: CommandTable {
        BridgeCommand("awaitViewer") { _, _ in
            await gate.wait()
            return "late"
        }
    }
}

/// A page's notebook: `write` takes its time (until the gate opens) before it stores `text`;
/// `read` answers what is stored.
private final class NotebookModule: BridgeModule {
    let name = "Notebook"
    let gate = Gate()
    let page = Mutex<String?>(nil)
    var commands: CommandTable {
        BridgeCommand("write", .ordered) { [self] request, _ in
            let text = try request.string("text")
            await gate.wait()
            page.withLock { $0 = text }
            return .emptyObject
        }
        BridgeCommand("read", .ordered) { [self] _, _ in
            page.withLock { $0 }.map(JSONValue.string) ?? .null
        }
    }
}

/// A concurrent command with an answer from memory: memory answers "from memory"; the handler
/// counts its calls and answers "from the handler".
private final class ConcurrentMemoryModule: BridgeModule {
    let name = "ConcurrentMemory"
    let handlerCalls = Mutex(0)
    var commands: CommandTable {
        BridgeCommand("peek", .concurrent) { [self] _, _ in
            handlerCalls.withLock { $0 += 1 }
            return "from the handler"
        }
        .answeringFromMemory { _, _ in "from memory" }
    }
}

/// A concurrent command with a 1 s deadline whose handler sleeps an hour of the manual clock, and
/// notes when it is cancelled.
private final class StuckModule: BridgeModule {
    let name = "Stuck"
    let clock: ManualHostClock
    let cancelled = Mutex(0)
    init(clock: ManualHostClock) { self.clock = clock }
    var commands: CommandTable {
        BridgeCommand("stuck", .concurrent(.after(.seconds(1)))) { [self] _, _ in
            do {
                try await clock.sleep(for: .seconds(3600))
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            return "woke"
        }
    }
}

/// A gate the test opens; handlers wait on it (without polling, and whether cancelled or not).
private final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state -> Bool in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }

    func raise() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Collects what a dispatcher delivers.
final class Outbox: Sendable {
    let messages = Mutex<[JSONValue]>([])
    func append(_ message: JSONValue) { messages.withLock { $0.append(message) } }
    var all: [JSONValue] { messages.withLock { $0 } }
    func answers(to guid: String) -> [JSONValue] { all.filter { $0["GUID"]?.stringValue == guid } }
    var guids: [String] { all.compactMap { $0["GUID"]?.stringValue } }
    var events: [HostEvent] { all.compactMap(HostEvent.init(json:)) }
}

@Suite("Frame dispatch")
struct PageConnectionTests {
    /// A dispatcher over the host's bridge, or, given a clock, over a bridge of its own that reads
    /// that clock and has the built-in modules.
    func dispatcher(clock: ManualHostClock? = nil, maxInFlight: Int = 64) async throws -> (PageConnection, Outbox, Bridge) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        var bridge = host.bridge
        if let clock {
            bridge = Bridge(clock: clock, logger: quietLogger())
            for module in StoryBridgeHost.builtInModules() { try bridge.register(module) }
        }
        let outbox = Outbox()
        let dispatcher = PageConnection(bridge: bridge, context: host.context(for: viewer), maxInFlight: maxInFlight) {
            outbox.append($0)
        }
        return (dispatcher, outbox, bridge)
    }

    func run(_ dispatcher: PageConnection, _ frame: String) async {
        await dispatcher.run([frame])
    }

    @Test("a frame that is not JSON yields an error event, and the next frame still works")
    func malformedThenGood() async throws {
        let (dispatcher, outbox, _) = try await dispatcher()
        await run(dispatcher, "{\"Command\": ")
        await run(dispatcher, #"{"Command":"getUserInfo","GUID":"G1"}"#)
        let error = try #require(outbox.events.first)
        #expect(error.name == "error")
        #expect(error.data["message"]?.stringValue?.hasPrefix("frame is not valid JSON") == true)
        #expect(outbox.answers(to: "G1").count == 1)
    }

    @Test("a request with a bad member but a readable GUID gets a 400 answer naming the member")
    func badMemberWithGUID() async throws {
        let (dispatcher, outbox, _) = try await dispatcher()
        await run(dispatcher, #"{"Command":["go"],"GUID":"G9"}"#)
        let answer = try #require(outbox.answers(to: "G9").first)
        #expect(answer["ErrorCode"] == 400)
        #expect(answer["ErrorMessage"]?.stringValue?.contains("'Command' must be a string, got an array") == true)
    }

    @Test("an array frame is answered element by element, in order")
    func arrayInOrder() async throws {
        let (dispatcher, outbox, _) = try await dispatcher()
        await run(
            dispatcher,
            #"[{"Command":"getUserInfo","GUID":"A"},{"Command":"nope","GUID":"B"},{"Command":"getAppInfo","GUID":"C"}]"#)
        #expect(outbox.guids == ["A", "B", "C"])
        #expect(outbox.answers(to: "B").first?["ErrorCode"] == 400)
    }

    @Test("an ordered handler past its deadline yields exactly one answer, the 504, when the clock passes it")
    func exactlyOnceAfterDeadline() async throws {
        let clock = ManualHostClock()
        let (dispatcher, outbox, bridge) = try await dispatcher(clock: clock)
        let module = LateModule()
        try bridge.register(module)
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"{"Command":"late","GUID":"L1"}"#) { work in group.addTask { await work() } }
            // The deadline timer's tick waits on the clock; time has not moved, so no answer yet.
            #expect(await clock.waitForSleepers(1))
            #expect(outbox.answers(to: "L1").isEmpty)
            clock.advance(by: .milliseconds(50))
            #expect(await eventually { outbox.answers(to: "L1").count == 1 })
            // The handler answers now, late: that answer is dropped.
            module.gate.raise()
        }
        await dispatcher.drained()
        let answers = outbox.answers(to: "L1")
        #expect(answers.count == 1)
        #expect(answers.first?["ErrorCode"] == 504)
        #expect(answers.first?["ErrorMessage"] == "Module 'Late' did not answer 'late' within 0.05 s")
    }

    @Test("a concurrent command does not hold up the requests after it")
    func concurrentModule() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = WaitingModule()
        try bridge.register(module)
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(
                frame: #"[{"Command":"wait","GUID":"W"},{"Command":"setCustomEvent","Data":{"key":"k","value":1},"GUID":"U"}]"#
            ) {
                work in group.addTask { await work() }
            }
            #expect(await eventually { outbox.answers(to: "U").count == 1 })
            #expect(outbox.answers(to: "W").isEmpty)
            module.gate.raise()
        }
        await dispatcher.drained()
        #expect(outbox.guids == ["U", "W"])
    }

    @Test("a concurrent handler past its deadline is answered 504 and cancelled, and frees its place in flight")
    func concurrentDeadline() async throws {
        let clock = ManualHostClock()
        let (dispatcher, outbox, bridge) = try await dispatcher(clock: clock, maxInFlight: 1)
        let module = StuckModule(clock: clock)
        try bridge.register(module)
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"[{"Command":"stuck","GUID":"S1"},{"Command":"getUserInfo","GUID":"U"}]"#) {
                work in group.addTask { await work() }
            }
            #expect(outbox.guids == ["U"])
            // The handler and the deadline timer's tick both wait on the clock.
            #expect(await clock.waitForSleepers(2))
            clock.advance(by: .seconds(1))
            #expect(await eventually { outbox.answers(to: "S1").count == 1 })
            #expect(outbox.answers(to: "S1").first?["ErrorCode"] == 504)
            #expect(await eventually { module.cancelled.withLock { $0 } == 1 })
            // Its place is free again: with one place in flight, the next one is taken, not refused 429.
            await dispatcher.dispatch(frame: #"{"Command":"stuck","GUID":"S2"}"#) { work in group.addTask { await work() } }
            #expect(await clock.waitForSleepers(2))
            #expect(outbox.answers(to: "S2").isEmpty)
            clock.advance(by: .seconds(1))
            #expect(await eventually { outbox.answers(to: "S2").first?["ErrorCode"] == 504 })
        }
        await dispatcher.drained()
        #expect(outbox.answers(to: "S1").count == 1)
        #expect(outbox.answers(to: "S2").count == 1)
    }

    @Test("an ordered command sees the page's own earlier write, however long the write takes")
    func orderedSeesItsOwnWrite() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = NotebookModule()
        try bridge.register(module)
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"[{"Command":"write","Data":{"text":"hello"},"GUID":"W"},{"Command":"read","GUID":"R"}]"#) {
                work in group.addTask { await work() }
            }
            module.gate.raise()
        }
        await dispatcher.drained()
        #expect(outbox.guids == ["W", "R"])
        #expect(outbox.answers(to: "R").first?["Data"] == "hello")
        // The built-in custom events, likewise, in one frame.
        await run(
            dispatcher,
            #"[{"Command":"setCustomEvent","Data":{"key":"k","value":"v1"},"GUID":"S"},{"Command":"getCustomEventByKey","Data":{"key":"k"},"GUID":"G"}]"#
        )
        #expect(outbox.answers(to: "G").first?["Data"] == ["value": "v1"])
    }

    @Test("a hung ordered handler gets its 504 at the deadline, and the memory-only requests queued behind it are then answered, in order")
    func hungModuleDoesNotStallTheQueue() async throws {
        let clock = ManualHostClock()
        let (dispatcher, outbox, bridge) = try await dispatcher(clock: clock)
        let module = LateModule()
        try bridge.register(module)
        let frame = #"[{"Command":"late","GUID":"L"},{"Command":"getUserInfo","GUID":"U1"},{"Command":"getAppInfo","GUID":"U2"}]"#
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            #expect(await clock.waitForSleepers(1))
            // Memory-only commands keep their place behind the stuck one until its deadline.
            #expect(outbox.all.isEmpty)
            clock.advance(by: .milliseconds(50))
            #expect(await eventually { outbox.answers(to: "U2").count == 1 })
            #expect(outbox.guids == ["L", "U1", "U2"])
            #expect(outbox.answers(to: "L").first?["ErrorCode"] == 504)
            // A memory-only command sent now is answered while the stuck handler still runs.
            await dispatcher.dispatch(frame: #"{"Command":"getCurrentSlideName","GUID":"U3"}"#) { work in
                group.addTask { await work() }
            }
            #expect(await eventually { outbox.answers(to: "U3").count == 1 })
            module.gate.raise()
        }
        await dispatcher.drained()
        // The late answer, once it came, was dropped.
        #expect(outbox.answers(to: "L").count == 1)
        dispatcher.finishReading()
    }

    @Test("a command whose handler awaits is ordered, and hung it gets a 504 at the bridge's default deadline; the page goes on")
    func awaitingHandlerHasADeadline() async throws {
        let clock = ManualHostClock()
        let (dispatcher, outbox, bridge) = try await dispatcher(clock: clock)
        let module = AwaitingMemoryModule()
        try bridge.register(module)
        #expect(bridge.policy(for: "awaitViewer") == .ordered(.bridgeDefault))
        #expect(bridge.defaultDeadline == .seconds(10))
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"[{"Command":"awaitViewer","GUID":"A"},{"Command":"getUserInfo","GUID":"U"}]"#) {
                work in group.addTask { await work() }
            }
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: .seconds(9))
            #expect(await clock.waitForSleepers(1))
            #expect(outbox.all.isEmpty)
            clock.advance(by: .seconds(1))
            #expect(await eventually { outbox.answers(to: "U").count == 1 })
            module.gate.raise()
        }
        await dispatcher.drained()
        #expect(outbox.guids == ["A", "U"])
        let answer = try #require(outbox.answers(to: "A").first)
        #expect(answer["ErrorCode"] == 504)
        #expect(answer["ErrorMessage"] == "Module 'AwaitingMemory' did not answer 'awaitViewer' within 10 s")
        dispatcher.finishReading()
    }

    @Test("requests the page sent before its connection ended still run: a fire-and-forget request queued behind a slow one takes effect")
    func queuedRequestsRunAfterTheConnectionEnds() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = NotebookModule()
        try bridge.register(module)
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(
                frame: #"[{"Command":"write","Data":{"text":"first"}},{"Command":"write","Data":{"text":"last"}}]"#
            ) { work in group.addTask { await work() } }
            // The page leaves while the first write still waits: the connection ends.
            dispatcher.finishReading()
            module.gate.raise()
        }
        await dispatcher.drained()
        #expect(module.page.withLock { $0 } == "last")
        #expect(outbox.all.isEmpty)
    }

    @Test("a memory-only command is answered on the reading task, with no task spawned")
    func immediateAnswer() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        #expect(bridge.policy(for: "getCurrentSlideName") == .fromMemory(.readsOnly))
        let spawned = Mutex(0)
        await dispatcher.dispatch(frame: #"{"Command":"getCurrentSlideName","GUID":"I1"}"#) { _ in
            spawned.withLock { $0 += 1 }
        }
        #expect(spawned.withLock { $0 } == 0)
        #expect(outbox.answers(to: "I1").first?["Status"] == "Success")
    }

    @Test(
        "a concurrent command with a memory answer meets one decision whatever the frame: from memory while the page's queue is idle, on a task of its own behind a waiting request"
    )
    func concurrentMemoryAnswerIsOneDecision() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = ConcurrentMemoryModule()
        try bridge.register(module)
        let gated = GatedOrderedModule()
        try bridge.register(gated)
        // A frame of one request and an array frame: the same answer from memory, no task.
        let spawned = Mutex(0)
        for frame in [#"{"Command":"peek","GUID":"one"}"#, #"[{"Command":"peek","GUID":"array"}]"#] {
            await dispatcher.dispatch(frame: frame) { _ in spawned.withLock { $0 += 1 } }
        }
        #expect(spawned.withLock { $0 } == 0)
        #expect(outbox.answers(to: "one").first?["Data"] == "from memory")
        #expect(outbox.answers(to: "array").first?["Data"] == "from memory")
        // Behind a waiting ordered request, it does not wait: its own task, its handler.
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"[{"Command":"gated","GUID":"held"},{"Command":"peek","GUID":"behind"}]"#) { work in
                group.addTask { await work() }
            }
            #expect(await eventually { outbox.answers(to: "behind").count == 1 })
            #expect(outbox.answers(to: "held").isEmpty)
            gated.gate.raise()
        }
        await dispatcher.drained()
        #expect(outbox.answers(to: "behind").first?["Data"] == "from the handler")
        #expect(module.handlerCalls.withLock { $0 } == 1)
        #expect(outbox.guids == ["one", "array", "behind", "held"])
    }

    @Test("a memory-only command still waits for the ordered request sent before it")
    func immediateKeepsOrder() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = GatedOrderedModule()
        try bridge.register(module)
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"{"Command":"gated","GUID":"S"}"#) { work in group.addTask { await work() } }
            await dispatcher.dispatch(frame: #"{"Command":"getUserInfo","GUID":"U"}"#) { work in group.addTask { await work() } }
            // The memory-only request was queued, not answered: nothing can answer before the gate opens.
            #expect(outbox.all.isEmpty)
            module.gate.raise()
            #expect(await eventually { outbox.answers(to: "U").count == 1 })
        }
        await dispatcher.drained()
        #expect(outbox.guids == ["S", "U"])
    }

    @Test("thousands of pipelined ordered requests are all answered once, in order, through the bounded queue")
    func floodIsAnsweredInOrder() async throws {
        let (dispatcher, outbox, _) = try await dispatcher()
        let guids = (0..<5_000).map { "F\($0)" }
        await withDiscardingTaskGroup { group in
            for chunk in stride(from: 0, to: guids.count, by: 500) {
                let requests = guids[chunk..<chunk + 500].map { #"{"Command":"getCurrentSlideName","GUID":"\#($0)"}"# }
                await dispatcher.dispatch(frame: "[" + requests.joined(separator: ",") + "]") { work in
                    group.addTask { await work() }
                }
            }
        }
        await dispatcher.drained()
        #expect(outbox.guids == guids)
    }
}
