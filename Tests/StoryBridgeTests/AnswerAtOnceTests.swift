import Foundation
import Synchronization
import Testing

@testable import StoryBridge

/// Frames answered by a plain call on the connection's task, and the answers kept written.
@Suite("answers made at once")
struct AnswerAtOnceTests {
    @Test("one memory request is answered at once; arrays, other commands, unknown commands and a busy page are dispatched")
    func answersAtOnce() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let outbox = Outbox()
        let dispatcher = FrameDispatcher(bridge: host.bridge, context: host.context(for: viewer)) { outbox.append($0) }
        func read(_ text: String) -> Result<BridgeRequest.Frame, FrameError> { BridgeRequest.read(frame: text) }

        let answer = dispatcher.answerAtOnce(read(#"{"Command":"getCurrentSlideName","Data":{},"GUID":"g1"}"#)) {
            $0?.jsonText
        }
        #expect(answer == .some(#"{"Data":{"slide":"index.html"},"ErrorCode":200,"ErrorMessage":"","GUID":"g1","Status":"Success"}"#))
        // Without a GUID it runs and nothing is answered.
        #expect(dispatcher.answerAtOnce(read(#"{"Command":"getNavigationData"}"#)) { $0 == nil } == true)
        // An answer from memory that fails is still an answer.
        let (bare, _) = await makeHost(presentation: presentation)
        let empty = await bare.viewers.lease(id: "no-slide-yet")
        let refusal = FrameDispatcher(bridge: bare.bridge, context: bare.context(for: empty)) { _ in }
        let refused = refusal.answerAtOnce(read(#"{"Command":"getCurrentSlideName","GUID":"g2"}"#)) { $0?.errorCode }
        #expect(refused == .some(400))
        // Everything else goes to dispatch.
        for frame in [
            #"[{"Command":"getCurrentSlideName","GUID":"g3"}]"#, #"{"Command":"setCustomEvent","Data":{"key":"k","value":1},"GUID":"g4"}"#,
            #"{"Command":"noSuchCommand","GUID":"g5"}"#, "not json",
        ] {
            #expect(dispatcher.answerAtOnce(read(frame)) { _ in true } == nil)
        }
        #expect(outbox.all.isEmpty)
    }

    @Test("getCurrentSlideName's kept answer follows the slide shown")
    func slideNameFollowsTheSlide() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let dispatcher = FrameDispatcher(bridge: host.bridge, context: host.context(for: viewer)) { _ in }
        func slide() -> String? {
            let frame = BridgeRequest.read(frame: #"{"Command":"getCurrentSlideName","GUID":"g"}"#)
            return dispatcher.answerAtOnce(frame) { $0?.data["slide"]?.stringValue } ?? nil
        }
        #expect(slide() == "index.html")
        #expect(slide() == "index.html")
        await host.pageLoaded(viewer, presentationId: presentation.id, slide: "a.html", pageLoad: "load-2")
        #expect(slide() == "a.html")
        await host.pageLoaded(viewer, presentationId: presentation.id, slide: "index.html", pageLoad: "load-3")
        #expect(slide() == "index.html")
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
        #expect(seqs.count <= 20 + recorded)
        #expect(seqs.last == recorded)
        #expect(Set(seqs).count == seqs.count)
        #expect(Set(seqs) == Set((seqs.min() ?? 0)...recorded))
        // The kept history is the newest 20, oldest first.
        #expect(feed.recentEntries.compactMap { $0["seq"]?.intValue } == Array((recorded - 19)...recorded))
    }
}
