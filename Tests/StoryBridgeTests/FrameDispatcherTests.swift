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

private struct WaitingModule: BridgeModule {
    let name = "Waiting"
    let commands = ["wait"]
    var runsConcurrently: Bool { true }
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        try await Task.sleep(for: .seconds(3))
        return "waited"
    }
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
        bridge.register(WaitingModule())
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: #"[{"Command":"wait","GUID":"W"},{"Command":"getUserInfo","GUID":"U"}]"#) {
                work in group.addTask { await work() }
            }
            #expect(outbox.answers(to: "U").count == 1)
            #expect(outbox.answers(to: "W").isEmpty)
        }
        #expect(outbox.all.compactMap { $0["GUID"]?.stringValue } == ["U", "W"])
    }
}
