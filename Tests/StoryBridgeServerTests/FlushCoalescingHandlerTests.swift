import NIOCore
import NIOEmbedded
import Testing

@testable import StoryBridgeServer

@Suite("A page socket's flushes: the first of a turn of the event loop at once, the rest held to its end")
struct FlushCoalescingHandlerTests {
    /// Counts the flushes that reach the socket side of the coalescing handler.
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        var flushes = 0
        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    /// A channel whose socket side is `counter`, then the handler (the WebSocket writer's side).
    private func channel(_ counter: FlushCounter) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(FlushCoalescingHandler())
        return channel
    }

    private func send(_ text: String, on channel: EmbeddedChannel) {
        channel.write(IOData.byteBuffer(ByteBuffer(string: text)), promise: nil)
        channel.flush()
    }

    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let buffer = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let bytes) = buffer else { continue }
            texts.append(String(buffer: bytes))
        }
        return texts
    }

    @Test("a lone answer is flushed at once; those after it in the same turn wait for the turn's end, in one flush")
    func firstAtOnceTheRestHeld() throws {
        let counter = FlushCounter()
        let channel = try channel(counter)
        send("one", on: channel)
        #expect(try written(channel) == ["one"])
        #expect(counter.flushes == 1)
        for text in ["two", "three"] { send(text, on: channel) }
        #expect(try written(channel).isEmpty)
        #expect(counter.flushes == 1)
        channel.embeddedEventLoop.run()
        #expect(try written(channel) == ["two", "three"])
        #expect(counter.flushes == 2)
        // A new turn: its first answer goes at once again.
        send("four", on: channel)
        #expect(try written(channel) == ["four"])
        #expect(counter.flushes == 3)
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 3)
        _ = try channel.finish()
    }

    @Test("a close flushes what is held before the socket closes")
    func closeFlushesFirst() throws {
        let counter = FlushCounter()
        let channel = try channel(counter)
        send("first answer", on: channel)
        send("last answer", on: channel)
        #expect(try written(channel) == ["first answer"])
        try channel.close().wait()
        #expect(try written(channel) == ["last answer"])
        #expect(counter.flushes == 2)
        // The turn's end finds nothing left to flush.
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 2)
    }

    @Test("a write without a flush stays unflushed, as without the handler")
    func writeWithoutFlush() throws {
        let counter = FlushCounter()
        let channel = try channel(counter)
        channel.write(IOData.byteBuffer(ByteBuffer(string: "unflushed")), promise: nil)
        channel.embeddedEventLoop.run()
        #expect(try written(channel).isEmpty)
        #expect(counter.flushes == 0)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
