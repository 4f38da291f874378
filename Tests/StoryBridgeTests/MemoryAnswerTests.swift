import Foundation
import Synchronization
import Testing

@testable import StoryBridge

/// An ordered command with an answer from memory: `look` answers from `memory` when it holds the
/// key, and counts the calls of its handler, which answers "from the handler" once `gate` opens.
private final class LookupModule: BridgeModule, Sendable {
    let name = "Lookup"
    let memory = Mutex<[String: String]>([:])
    let handlerCalls = Mutex(0)
    let opened = Mutex(false)

    var commands: CommandTable {
        BridgeCommand("look") { [self] request, _ in
            handlerCalls.withLock { $0 += 1 }
            while !opened.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
            return .string("from the handler: \(try request.string("key"))")
        }
        .answeringFromMemory { [self] request, _ in
            let key = try request.string("key")
            if key == "absent" { throw BridgeError.notFound("No '\(key)' here") }
            return memory.withLock { $0[key] }.map { .string("from memory: \($0)") }
        }
        BridgeCommand("hold") { [self] _, _ in
            while !opened.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
            return .emptyObject
        }
    }
}

/// A command made with `BridgeCommand.fromMemory`: `tick` counts its calls and answers the count;
/// `refuse` throws; `hold` waits until `opened`.
private final class CounterModule: BridgeModule, Sendable {
    let name = "Counter"
    let calls = Mutex(0)
    let opened = Mutex(false)

    var commands: CommandTable {
        BridgeCommand.fromMemory("tick") { [self] _, _ in
            .int(
                calls.withLock { value in
                    value += 1
                    return value
                })
        }
        BridgeCommand.fromMemory("refuse", .changesState) { _, _ in
            throw BridgeError.notFound("Nothing to count")
        }
        BridgeCommand("hold") { [self] _, _ in
            while !opened.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
            return .emptyObject
        }
    }
}

/// Ordered commands answered from memory when the page has nothing waiting.
@Suite("answers from memory")
struct MemoryAnswerTests {
    func dispatcher(_ module: (any BridgeModule)? = nil) async throws -> (PageConnection, Outbox, StoryBridgeHost) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        if let module { try host.bridge.register(module) }
        let outbox = Outbox()
        let dispatcher = PageConnection(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        return (dispatcher, outbox, host)
    }

    func run(_ dispatcher: PageConnection, _ frames: String...) async {
        await dispatcher.run(frames)
    }

    static func request(_ command: String, _ data: String, guid: String) -> String {
        #"{"Command":"\#(command)","Data":\#(data),"GUID":"\#(guid)"}"#
    }

    @Test("memory answers when it holds the data (no handler), fails with the module's error, and leaves the rest to the handler")
    func memoryFirst() async throws {
        let module = LookupModule()
        module.memory.withLock { $0["kept"] = "1" }
        module.opened.withLock { $0 = true }
        let (dispatcher, outbox, _) = try await dispatcher(module)
        await run(dispatcher, Self.request("look", #"{"key":"kept"}"#, guid: "a"))
        #expect(outbox.answers(to: "a").first?["Data"]?.stringValue == "from memory: 1")
        #expect(module.handlerCalls.withLock { $0 } == 0)
        await run(dispatcher, Self.request("look", #"{"key":"absent"}"#, guid: "b"))
        #expect(outbox.answers(to: "b").first?["ErrorCode"]?.intValue == 404)
        await run(dispatcher, Self.request("look", #"{"key":"other"}"#, guid: "c"))
        #expect(outbox.answers(to: "c").first?["Data"]?.stringValue == "from the handler: other")
        #expect(module.handlerCalls.withLock { $0 } == 1)
        #expect(outbox.guids == ["a", "b", "c"])
    }

    @Test("behind a waiting request of the page, a request keeps its place: the page's worker answers it after that one")
    func keepsItsPlace() async throws {
        let module = LookupModule()
        module.memory.withLock { $0["kept"] = "1" }
        let (dispatcher, outbox, _) = try await dispatcher(module)
        await withDiscardingTaskGroup { group in
            let frame = "[" + Self.request("hold", "{}", guid: "held") + "," + Self.request("look", #"{"key":"kept"}"#, guid: "look") + "]"
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            #expect(outbox.all.isEmpty)
            module.opened.withLock { $0 = true }
        }
        await dispatcher.drained()
        #expect(outbox.guids == ["held", "look"])
        // Once the request before it is answered, memory may answer it: still in its place.
        #expect(outbox.answers(to: "look").first?["Data"]?.stringValue == "from memory: 1")
        #expect(module.handlerCalls.withLock { $0 } == 0)
    }

    @Test(
        "a command made with fromMemory is answered by a plain call before dispatch returns, with no task, and keeps its place behind a waiting request"
    )
    func synchronousMemoryCommand() async throws {
        let module = CounterModule()
        let (dispatcher, outbox, host) = try await dispatcher(module)
        #expect(host.bridge.policy(for: "tick") == .fromMemory(.readsOnly))
        #expect(host.bridge.policy(for: "refuse") == .fromMemory(.changesState))
        let spawned = Mutex(0)
        await dispatcher.dispatch(frame: Self.request("tick", "{}", guid: "first")) { _ in spawned.withLock { $0 += 1 } }
        await dispatcher.dispatch(frame: Self.request("refuse", "{}", guid: "refused")) { _ in spawned.withLock { $0 += 1 } }
        #expect(spawned.withLock { $0 } == 0)
        #expect(outbox.answers(to: "first").first?["Data"]?.intValue == 1)
        #expect(outbox.answers(to: "refused").first?["ErrorCode"]?.intValue == 404)
        #expect(outbox.answers(to: "refused").first?["ErrorMessage"]?.stringValue == "Nothing to count")
        // Behind a request that waits, it is answered by the page's worker, in its place.
        await withDiscardingTaskGroup { group in
            let frame = "[" + Self.request("hold", "{}", guid: "held") + "," + Self.request("tick", "{}", guid: "second") + "]"
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
            #expect(outbox.answers(to: "second").isEmpty)
            #expect(module.calls.withLock { $0 } == 1)
            module.opened.withLock { $0 = true }
        }
        await dispatcher.drained()
        #expect(outbox.guids == ["first", "refused", "held", "second"])
        #expect(outbox.answers(to: "second").first?["Data"]?.intValue == 2)
        // Run outside any connection (a script's command test), it answers the same way.
        let context = host.context(for: await host.viewers.lease(id: "script"))
        let answer = await host.bridge.handle(BridgeRequest(command: "tick", data: .emptyObject, guid: "third"), context: context)
        #expect(answer?.data == .int(3))
    }

    @Test("getCustomEventByKey from the mirror sees the page's own writes, and its absent keys are 404")
    func customEvents() async throws {
        let (dispatcher, outbox, _) = try await dispatcher()
        await run(
            dispatcher, Self.request("setCustomEvent", #"{"key":"k","value":"one"}"#, guid: "set1"),
            Self.request("getCustomEventByKey", #"{"key":"k"}"#, guid: "get1"))
        // The session is mirrored now: the next reads come from memory, after each write commits.
        await run(dispatcher, Self.request("setCustomEvent", #"{"key":"k","value":"two"}"#, guid: "set2"))
        await run(dispatcher, Self.request("getCustomEventByKey", #"{"key":"k"}"#, guid: "get2"))
        await run(dispatcher, Self.request("deleteCustomEventByKey", #"{"key":"k"}"#, guid: "delete"))
        await run(dispatcher, Self.request("getCustomEventByKey", #"{"key":"k"}"#, guid: "get3"))
        #expect(outbox.answers(to: "get1").first?["Data"]?["value"]?.stringValue == "one")
        #expect(outbox.answers(to: "get2").first?["Data"]?["value"]?.stringValue == "two")
        #expect(outbox.answers(to: "get3").first?["ErrorCode"]?.intValue == 404)
        #expect(outbox.answers(to: "get3").first?["ErrorMessage"]?.stringValue == "No custom event with key 'k' in this session")
    }

    @Test("a value made once is made by the first call only")
    func madeOnce() {
        let once = MadeOnce<Int>()
        let makes = Mutex(0)
        let first = once.value {
            makes.withLock { $0 += 1 }
            return 7
        }
        let second = once.value {
            makes.withLock { $0 += 1 }
            return 8
        }
        #expect(first == 7 && second == 7)
        #expect(makes.withLock { $0 } == 1)
    }

    @Test("getCurrentSessions from the mirror answers what the database holds, with the same wire text")
    func currentSession() async throws {
        let (_, _, host) = try await dispatcher()
        let viewer = await host.viewers.viewer(id: "viewer-1")
        // The answers as made (their payload kept written or not), seen by the bridge's observers.
        let responses = Mutex<[BridgeResponse]>([])
        host.bridge.observe { exchange in
            if let response = exchange.response { responses.withLock { $0.append(response) } }
        }
        let outbox = Outbox()
        let dispatcher = PageConnection(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        await run(dispatcher, Self.request("getCurrentSessions", "{}", guid: "first"))
        await run(dispatcher, Self.request("setSessionComplete", "{}", guid: "complete"))
        await run(dispatcher, Self.request("getCurrentSessions", "{}", guid: "mirrored"))
        let mirrored = try #require(responses.withLock { $0.last })
        #expect(mirrored.guid == "mirrored")
        guard case .encoded = mirrored.payload else {
            Issue.record("answered from the mirror, with the answer's text kept")
            return
        }
        #expect(mirrored.jsonText == mirrored.json.jsonString())
        let sessionId = try #require(viewer.latestState.sessionId)
        let stored = try await SessionsModule.describeSession(id: sessionId, store: host.analytics)
        #expect(mirrored.data == stored)
        #expect(stored["complete"] == .bool(true))
    }
}

/// The report of the answers a page gave itself (``PageAnswers``).
@Suite("answers a page gives itself")
struct PageAnswersReportTests {
    @Test("a page's report is shown to the observers, leaving out what the page may not answer")
    func report() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let seen = Mutex<[BridgeExchange]>([])
        host.bridge.observe { exchange in seen.withLock { $0.append(exchange) } }
        let outbox = Outbox()
        let dispatcher = PageConnection(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        let exchanges = [
            #"{"request":{"Command":"getCurrentSlideName","Data":{},"GUID":"g1"},"answer":{"Data":{"slide":"index.html"},"ErrorCode":200,"ErrorMessage":"","GUID":"g1","Status":"Success"}}"#,
            #"{"request":{"Command":"setCustomEvent","Data":{"key":"k","value":"v"},"GUID":"g2"},"answer":{"Data":{},"ErrorCode":200,"ErrorMessage":"","GUID":"g2","Status":"Success"}}"#,
            #"{"request":{"Command":"getNavigationData","Data":{},"GUID":"g3"},"answer":{"Data":{},"ErrorCode":200,"ErrorMessage":"","GUID":"other","Status":"Success"}}"#,
        ]
        let frame =
            #"{"Command":"storybridge.pageAnswered","Data":{"exchanges":["# + exchanges.joined(separator: ",")
            + #"]},"GUID":"report"}"#
        await withDiscardingTaskGroup { group in
            await dispatcher.dispatch(frame: frame) { work in group.addTask { await work() } }
        }
        await dispatcher.drained()
        let reported = seen.withLock { $0 }.filter { $0.request.command != PageAnswers.reportCommand }
        #expect(reported.map(\.request.guid) == ["g1"])
        #expect(reported.first?.response?.data == ["slide": "index.html"])
        #expect(outbox.answers(to: "report").first?["Data"] == ["reported": 1])
        // Nothing of the refused exchanges reached a module.
        let sessionId = try #require(viewer.latestState.sessionId)
        #expect(try await host.analytics.customEventValue(sessionId: sessionId, key: "k") == nil)
    }

    @Test("a page may answer only the commands the host's built-in modules answer")
    func allowed() throws {
        let bridge = Bridge(logger: quietLogger())
        for module in StoryBridgeHost.builtInModules() { try bridge.register(module) }
        #expect(PageAnswers.allowed(by: bridge) == ["getNavigationData", "getCurrentSlideName"])
        struct OwnNames: BridgeModule {
            let name = "OwnNames"
            var commands: CommandTable { BridgeCommand.fromMemory("getCurrentSlideName") { _, _ in "mine" } }
        }
        try bridge.register(OwnNames())
        #expect(PageAnswers.allowed(by: bridge) == ["getNavigationData"])
    }
}
