import Foundation
import NIOCore
import StoryBridgeTesting
import Synchronization
import Testing

@testable import StoryBridge

/// Frames answered by a plain call on the connection's task, and the answers kept written.
@Suite("answers made at once")
struct AnswerAtOnceTests {
    @Test(
        "one decision per request: memory answers are written at once by the reading task with no task; other, unknown and unreadable requests are not"
    )
    func answersAtOnce() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let wire = Wire()
        let dispatcher = wire.connection(bridge: host.bridge, context: host.context(for: viewer))
        var bytes = PageConnection.Reader()
        let g1 = #"{"Data":{"slide":"index.html"},"ErrorCode":200,"ErrorMessage":"","GUID":"g1","Status":"Success"}"#
        #expect(await wire.tasks(dispatcher, #"{"Command":"getCurrentSlideName","Data":{},"GUID":"g1"}"#, &bytes) == 0)
        #expect(wire.frames == [.init(text: g1, byAnsweringTask: true)])
        // Written into the reading task's own buffer, by the one serialiser.
        #expect(String(decoding: bytes.answer, as: UTF8.self) == g1)
        // Without a GUID it runs and nothing is answered.
        #expect(await wire.tasks(dispatcher, #"{"Command":"getNavigationData"}"#, &bytes) == 0)
        #expect(wire.frames.count == 1)
        // An answer from memory that fails is still an answer, at once.
        let (bare, _) = await makeHost(presentation: presentation)
        let empty = await bare.viewers.lease(id: "no-slide-yet")
        let refusal = wire.connection(bridge: bare.bridge, context: bare.context(for: empty))
        #expect(await wire.tasks(refusal, #"{"Command":"getCurrentSlideName","GUID":"g2"}"#, &bytes) == 0)
        #expect(wire.frames.last?.text.contains(#""ErrorCode":400"#) == true)
        #expect(wire.frames.last?.byAnsweringTask == true)
        // A memory request in an array meets the same decision.
        #expect(await wire.tasks(dispatcher, #"[{"Command":"getCurrentSlideName","GUID":"g3"}]"#, &bytes) == 0)
        #expect(wire.frames.last?.text == g1.replacingOccurrences(of: "g1", with: "g3"))
        // An ordered command and an unknown one are queued for the page's worker, which answers them.
        #expect(await wire.tasks(dispatcher, #"{"Command":"setCustomEvent","Data":{"key":"k","value":1},"GUID":"g4"}"#, &bytes) == 1)
        #expect(wire.frames.last?.text.contains(#""GUID":"g4","Status":"Success""#) == true)
        #expect(await wire.tasks(dispatcher, #"{"Command":"noSuchCommand","GUID":"g5"}"#, &bytes) == 1)
        #expect(
            wire.frames.last?.text
                == #"{"Data":{},"ErrorCode":400,"ErrorMessage":"Unknown command 'noSuchCommand': no module is registered for it","GUID":"g5","Status":"Failure"}"#
        )
        // A frame that cannot be read is an error event, not an answer.
        #expect(await wire.tasks(dispatcher, "not json", &bytes) == 0)
        #expect(wire.frames.count == 5)
        #expect(wire.events.map(\.name) == ["error"])
    }

    @Test("getCurrentSlideName's kept answer follows the slide shown")
    func slideNameFollowsTheSlide() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let outbox = Outbox()
        let dispatcher = PageConnection(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        func slide() async -> String? {
            await dispatcher.dispatch(frame: #"{"Command":"getCurrentSlideName","GUID":"g"}"#) { _ in }
            return outbox.all.last?["Data"]?["slide"]?.stringValue
        }
        #expect(await slide() == "index.html")
        #expect(await slide() == "index.html")
        await host.pageLoaded(viewer, presentationId: presentation.id, slide: "a.html", pageLoad: "load-2")
        #expect(await slide() == "a.html")
        await host.pageLoaded(viewer, presentationId: presentation.id, slide: "index.html", pageLoad: "load-3")
        #expect(await slide() == "index.html")
    }

    @Test(
        "an answer is the same bytes whichever path wrote it: at once, by the worker, from the deadline timer, a concurrent task, a 429, an unreadable frame"
    )
    func oneSerialiser() async throws {
        let clock = ManualHostClock()
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let bridge = Bridge(clock: clock, logger: quietLogger())
        for module in StoryBridgeHost.builtInModules() { try bridge.register(module) }
        let hang = HangModule(clock: clock)
        try bridge.register(hang)
        let wire = Wire()
        let context = host.context(for: viewer)
        let dispatcher = wire.connection(bridge: bridge, context: context, maxInFlight: 1)
        let slide = #"{"Data":{"slide":"index.html"},"ErrorCode":200,"ErrorMessage":"","GUID":"same","Status":"Success"}"#
        var bytes = PageConnection.Reader()
        await withDiscardingTaskGroup { group in
            // At once, on the reading task.
            await dispatcher.receive(
                dispatcher.route(BridgeRequest.read(frame: #"{"Command":"getCurrentSlideName","GUID":"same"}"#)), reader: &bytes
            ) {
                work in group.addTask { await work() }
            }
            // By the worker, behind an ordered request that hangs until its deadline answers it 504
            // from the timer; a concurrent one is answered 504 from its own task, and the next is 429.
            let frame =
                #"[{"Command":"hang","GUID":"H"},{"Command":"getCurrentSlideName","GUID":"same"},{"Command":"hangAlone","GUID":"C"},{"Command":"hangAlone","GUID":"busy"},{"Command":["go"],"GUID":"bad"}]"#
            await dispatcher.receive(dispatcher.route(BridgeRequest.read(frame: frame)), reader: &bytes) {
                work in group.addTask { await work() }
            }
            // Both handlers and the deadline timer's tick wait on the clock.
            #expect(await clock.waitForSleepers(3))
            clock.advance(by: .seconds(1))
            #expect(await eventually { wire.frames.count == 6 })
            // The abandoned worker is still in the ordered handler: let it end.
            hang.release()
        }
        let texts = wire.frames.map(\.text)
        let timeout =
            #"{"Data":{},"ErrorCode":504,"ErrorMessage":"Module 'Hang' did not answer 'hang' within 1 s","GUID":"H","Status":"Failure"}"#
        #expect(texts.filter { $0 == slide }.count == 2)
        #expect(wire.frames.first == .init(text: slide, byAnsweringTask: true))
        #expect(wire.frames.contains(.init(text: slide, byAnsweringTask: true)))
        #expect(texts.contains(timeout))
        #expect(
            texts.contains(
                #"{"Data":{},"ErrorCode":504,"ErrorMessage":"Module 'Hang' did not answer 'hangAlone' within 1 s","GUID":"C","Status":"Failure"}"#
            ))
        #expect(
            texts.contains(
                #"{"Data":{},"ErrorCode":429,"ErrorMessage":"Too many requests in flight on this connection (limit 1)","GUID":"busy","Status":"Failure"}"#
            ))
        #expect(
            texts.contains {
                $0.hasPrefix(#"{"Data":{},"ErrorCode":400,"ErrorMessage":"#) && $0.hasSuffix(#""GUID":"bad","Status":"Failure"}"#)
            })
        // The same answers made outside a connection are the same text.
        #expect(await bridge.handle(BridgeRequest(command: "getCurrentSlideName", guid: "same"), context: context)?.jsonText == slide)
        async let handled = bridge.handle(BridgeRequest(command: "hang", guid: "H"), context: context)
        #expect(await clock.waitForSleepers(2))
        clock.advance(by: .seconds(1))
        #expect(await handled?.jsonText == timeout)
        #expect(wire.frames.count == 6)
        dispatcher.finishReading()
    }

    @Test("the inspector feed, recorded from many tasks while an inspector subscribes, misses and doubles nothing")
    func feedUnderConcurrentRecording() async throws {
        let feed = InspectorFeed(capacity: 20)
        // Fewer than the 2,000 a subscriber buffers.
        let recorded = 1_600
        let subscription = await withTaskGroup(of: (id: UUID, entries: AsyncStream<String>)?.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var subscription: (id: UUID, entries: AsyncStream<String>)?
                    for index in 0..<(recorded / 4) {
                        feed.record(.reload(presentationId: task, files: ["\(index)"]))
                        // One task subscribes half way through its own recording, while the others record.
                        if task == 0 && index == recorded / 8 { subscription = feed.subscribe() }
                    }
                    return subscription
                }
            }
            var found: (id: UUID, entries: AsyncStream<String>)?
            for await result in group where result != nil { found = result }
            return found
        }
        let (id, entries) = try #require(subscription)
        feed.unsubscribe(id)
        var seqs: [Int] = []
        var live = false
        for await text in entries {
            let entry = try JSONValue.parse(text)
            if entry["type"]?.stringValue == "live" {
                live = true
                continue
            }
            seqs.append(try #require(entry["seq"]?.intValue))
        }
        #expect(live)
        // The history (at most 20) then every later entry: consecutive numbers up to the last.
        // Entries of concurrent recorders reach a subscriber in the order their yields ran, not
        // always in number order (a recording yields after its part's lock is let go; the page
        // shows each row with its `seq`), so the newest is the highest number, not always the
        // last to arrive.
        #expect(seqs.count <= 20 + recorded)
        #expect(seqs.max() == recorded)
        #expect(Set(seqs).count == seqs.count)
        #expect(Set(seqs) == Set((seqs.min() ?? 0)...recorded))
        // The kept history is the newest 20, oldest first.
        #expect(feed.recentEntries.compactMap { $0["seq"]?.intValue } == Array((recorded - 19)...recorded))
    }
}

/// An ordered and a concurrent command, each with a 1 s deadline, whose handlers sleep an hour of
/// the manual clock.
private final class HangModule: BridgeModule {
    let name = "Hang"
    let clock: ManualHostClock
    init(clock: ManualHostClock) { self.clock = clock }
    var commands: CommandTable {
        BridgeCommand("hang", .ordered(.after(.seconds(1)))) { [clock] _, _ in
            try await clock.sleep(for: .seconds(3600))
            return "woke"
        }
        BridgeCommand("hangAlone", .concurrent(.after(.seconds(1)))) { [clock] _, _ in
            try await clock.sleep(for: .seconds(3600))
            return "woke"
        }
    }
    /// Lets the abandoned ordered handler end.
    func release() { clock.advance(by: .seconds(3600)) }
}

/// What a connection writes, as text, in order, with who wrote it, and its events.
private final class Wire: Sendable {
    struct Frame: Equatable {
        let text: String
        /// Written by the task answering in order (the reading task or the worker), not by the writer.
        let byAnsweringTask: Bool
    }
    private let state = Mutex<(frames: [Frame], events: [HostEvent])>(([], []))

    var frames: [Frame] { state.withLock { $0.frames } }
    var events: [HostEvent] { state.withLock { $0.events } }

    /// A connection writing here, its writer running on a task of its own.
    func connection(bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64) -> PageConnection {
        let connection = PageConnection(bridge: bridge, context: context, maxInFlight: maxInFlight) { [self] message, byAnsweringTask in
            record(String(buffer: message), byAnsweringTask: byAnsweringTask)
        }
        Task { await connection.runWriter() }
        return connection
    }

    private func record(_ text: String, byAnsweringTask: Bool) {
        if let json = try? JSONValue.parse(text), let event = HostEvent(json: json) {
            state.withLock { $0.events.append(event) }
        } else {
            state.withLock { $0.frames.append(Frame(text: text, byAnsweringTask: byAnsweringTask)) }
        }
    }

    /// Receives `text` as the reading task does, runs what it spawns, and returns, once everything
    /// owed is written, how many tasks it spawned.
    func tasks(_ connection: PageConnection, _ text: String, _ reader: inout PageConnection.Reader) async -> Int {
        let spawned = Mutex(0)
        await withDiscardingTaskGroup { group in
            await connection.receive(connection.route(BridgeRequest.read(frame: text)), reader: &reader) { work in
                spawned.withLock { $0 += 1 }
                group.addTask { await work() }
            }
        }
        await connection.drained()
        return spawned.withLock { $0 }
    }
}
