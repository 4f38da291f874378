import Foundation
import Synchronization
import Testing
@testable import StoryBridge

private struct LateModule: BridgeModule {
    let name = "Late"
    let commands = ["late"]
    var deadline: ModuleDeadline { .after(.milliseconds(50)) }
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        // Ignores cancellation on purpose, and answers long after the deadline (even on a busy machine).
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until { try? await Task.sleep(for: .milliseconds(10)) }
        return "late answer"
    }
}

/// A concurrent module that answers once the test opens its gate.
private struct WaitingModule: BridgeModule {
    let name = "Waiting"
    let commands = ["wait"]
    let gate = Gate()
    var runsConcurrently: Bool { true }
    var deadline: ModuleDeadline { .unlimited }
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        while !gate.isOpen { try await Task.sleep(for: .milliseconds(5)) }
        return "waited"
    }
}

/// An ordered module (not concurrent, not immediate) that answers once the test opens its gate.
private struct GatedOrderedModule: BridgeModule {
    let name = "GatedOrdered"
    let commands = ["gated"]
    let gate = Gate()
    var deadline: ModuleDeadline { .unlimited }
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        while !gate.isOpen { try await Task.sleep(for: .milliseconds(5)) }
        return "opened"
    }
}

/// A flag the test raises.
private final class Gate: Sendable {
    private let open = Mutex(false)
    var isOpen: Bool { open.withLock { $0 } }
    func raise() { open.withLock { $0 = true } }
}

/// Polls `condition` until it holds or 20 seconds pass.
private func eventually(_ condition: () -> Bool) async throws -> Bool {
    let until = ContinuousClock.now + .seconds(20)
    while !condition() {
        if ContinuousClock.now > until { return false }
        try await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Collects what a dispatcher delivers.
final class Outbox: Sendable {
    let messages = Mutex<[JSONValue]>([])
    func append(_ message: JSONValue) { messages.withLock { $0.append(message) } }
    var all: [JSONValue] { messages.withLock { $0 } }
    func answers(to guid: String) -> [JSONValue] { all.filter { $0["GUID"]?.stringValue == guid } }
    var events: [HostEvent] { all.compactMap(HostEvent.init(json:)) }
}

@Suite("Frame dispatch")
struct FrameDispatcherTests {
    func dispatcher() async throws -> (FrameDispatcher, Outbox, Bridge) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let outbox = Outbox()
        let dispatcher = FrameDispatcher(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        return (dispatcher, outbox, host.bridge)
    }

    func run(_ dispatcher: FrameDispatcher, _ frame: String) async {
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
        }
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
        #expect(outbox.all.compactMap { $0["GUID"]?.stringValue } == ["A", "B", "C"])
        #expect(outbox.answers(to: "B").first?["ErrorCode"] == 400)
    }

    @Test("a module past its deadline yields exactly one answer, the 504")
    func exactlyOnceAfterDeadline() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        bridge.register(LateModule())
        await run(dispatcher, #"{"Command":"late","GUID":"L1"}"#)
        #expect(outbox.answers(to: "L1").first?["ErrorCode"] == 504)
        try await Task.sleep(for: .milliseconds(3500))
        let answers = outbox.answers(to: "L1")
        #expect(answers.count == 1)
        #expect(answers.first?["ErrorCode"] == 504)
    }

    @Test("a concurrent module does not hold up the requests after it")
    func concurrentModule() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = WaitingModule()
        bridge.register(module)
        try await withThrowingDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"[{"Command":"wait","GUID":"W"},{"Command":"getUserInfo","GUID":"U"}]"#) {
                work in group.addTask { await work() }
            }
            let answered = try await eventually { outbox.answers(to: "U").count == 1 }
            #expect(answered)
            #expect(outbox.answers(to: "W").isEmpty)
            module.gate.raise()
        }
        #expect(outbox.all.compactMap { $0["GUID"]?.stringValue } == ["U", "W"])
    }

    @Test("a hung ordered module gets its 504 and the requests queued behind it are still answered, in order")
    func hungModuleDoesNotStallTheQueue() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        bridge.register(LateModule())
        let frame = #"[{"Command":"late","GUID":"L"},{"Command":"getUserInfo","GUID":"U1"},{"Command":"getAppInfo","GUID":"U2"}]"#
        try await withThrowingDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            // The late module runs for 3 s; the queue behind it is answered long before that.
            let answered = try await eventually { outbox.answers(to: "U2").count == 1 }
            #expect(answered)
            #expect(outbox.all.compactMap { $0["GUID"]?.stringValue } == ["L", "U1", "U2"])
            #expect(outbox.answers(to: "L").first?["ErrorCode"] == 504)
        }
        // The late answer, once it comes, is dropped.
        #expect(outbox.answers(to: "L").count == 1)
        dispatcher.finish()
    }

    @Test("a command that answers from memory is answered on the reading task, with no task spawned")
    func immediateAnswer() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        #expect(bridge.registration(for: "getCurrentSlideName")?.module.answersImmediately("getCurrentSlideName") == true)
        let spawned = Mutex(0)
        await dispatcher.dispatch(frame: #"{"Command":"getCurrentSlideName","GUID":"I1"}"#) { _ in
            spawned.withLock { $0 += 1 }
        }
        #expect(spawned.withLock { $0 } == 0)
        #expect(outbox.answers(to: "I1").first?["Status"] == "Success")
    }

    @Test("a command that answers from memory still waits for the ordered request sent before it")
    func immediateKeepsOrder() async throws {
        let (dispatcher, outbox, bridge) = try await dispatcher()
        let module = GatedOrderedModule()
        bridge.register(module)
        try await withThrowingDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"{"Command":"gated","GUID":"S"}"#) { work in group.addTask { await work() } }
            await dispatcher.dispatch(frame: #"{"Command":"getUserInfo","GUID":"U"}"#) { work in group.addTask { await work() } }
            try await Task.sleep(for: .milliseconds(100))
            #expect(outbox.all.isEmpty)
            module.gate.raise()
            #expect(try await eventually { outbox.answers(to: "U").count == 1 })
        }
        #expect(outbox.all.compactMap { $0["GUID"]?.stringValue } == ["S", "U"])
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
        #expect(outbox.all.compactMap { $0["GUID"]?.stringValue } == guids)
    }
}
