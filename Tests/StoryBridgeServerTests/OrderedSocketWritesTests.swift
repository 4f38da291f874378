import Dispatch
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import StoryBridgeServer

@Suite("A page socket's writes reach the channel in the order made, from the event loop or off it")
struct OrderedSocketWritesTests {
    /// The frames in the order they reached the "channel".
    private final class Channel: Sendable {
        let loop: any EventLoop
        let frames = Mutex<[String]>([])
        init(loop: any EventLoop) { self.loop = loop }

        /// As swift-websocket's writer: at once on the event loop, as a task of the loop from any
        /// other thread (and returns before that task has run).
        func write(_ text: String) {
            if loop.inEventLoop {
                frames.withLock { $0.append(text) }
            } else {
                loop.execute { self.frames.withLock { $0.append(text) } }
            }
        }
    }

    /// Runs `body` with one event loop, a channel on it and the writes to keep in order.
    private func withLoop(_ body: (any EventLoop, Channel, OrderedSocketWrites) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        try await body(loop, Channel(loop: loop), OrderedSocketWrites(eventLoop: loop))
        try await group.shutdownGracefully()
    }

    @Test("a write on the event loop after one made off it waits for the earlier frame")
    func offTheLoopThenOnIt() async throws {
        try await withLoop { loop, channel, writes in
            // The loop is kept busy while a task that will write on it is queued, and then a frame
            // is written off the loop: its task is queued behind that task's.
            let busy = DispatchSemaphore(value: 0)
            loop.execute { busy.wait() }
            let onTheLoop = Task(executorPreference: EventLoopTaskExecutor(loop)) {
                try await writes.write { channel.write("second, on the loop") }
            }
            try await writes.write { channel.write("first, off the loop") }
            busy.signal()
            try await onTheLoop.value
            #expect(channel.frames.withLock { $0 } == ["first, off the loop", "second, on the loop"])
        }
    }

    @Test("writes from one side only go as they come")
    func oneSide() async throws {
        try await withLoop { loop, channel, writes in
            for index in 0..<3 { try await writes.write { channel.write("off \(index)") } }
            try await Task(executorPreference: EventLoopTaskExecutor(loop)) {
                for index in 0..<3 { try await writes.write { channel.write("on \(index)") } }
            }.value
            #expect(channel.frames.withLock { $0 } == ["off 0", "off 1", "off 2", "on 0", "on 1", "on 2"])
        }
    }
}
