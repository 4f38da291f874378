import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeServer

/// The connection's one way out (`PageConnection`'s writer): answers written by the reading task and by
/// the page's ordered worker, and host events, leave in the order they were sent, also when more
/// are queued than its high watermark.
@Suite("Outbound channel")
struct OutboundChannelTests {
    @Test("a burst of memory and ordered requests, past the high watermark, is answered in the order sent")
    func orderUnderConcurrentWriters() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer(slide: "index.html", viewerId: "outbound-order")
            #expect(await viewer.nextEvent(named: "hello") != nil)
            // Memory answers are written by the reading task while the queue is idle, ordered
            // ones by the page's worker; a memory request behind an ordered one waits its turn.
            var sent: [String] = []
            for index in 0..<(4 * PageConnection.outboundHighWatermark) {
                let guid = viewer.makeGUID()
                sent.append(guid)
                let request =
                    index % 3 == 0
                    ? BridgeRequest(
                        command: "setCustomEvent", data: .object(["key": .string("k\(index % 7)"), "value": .int(index)]), guid: guid)
                    : BridgeRequest(command: "getCurrentSlideName", data: .emptyObject, guid: guid)
                viewer.send(request)
            }
            #expect(await viewer.answer(to: sent.last!) != nil)
            let answered = viewer.received.withLock { messages in
                messages.compactMap { BridgeResponse(json: $0) }.map(\.guid)
            }
            #expect(answered == sent)
            await viewer.close()
        }
    }
}
