import NIOCore
import Synchronization

/// Keeps a page socket's writes in the order they were made when they come from different
/// threads. swift-websocket's writer hands a frame written on the socket's event loop to the
/// channel at once, but one written from another thread as a task of the event loop, and its
/// `write` returns before that task has run: a write made on the loop right after one made off it
/// would reach the socket first (an answer before `hello`, a memory answer before the queued
/// answer sent before it). The connection's machine lets one write happen at a time; this adds
/// the rest: a write on the event loop that follows one made off it first lets the loop run the
/// tasks already waiting (one no-op task of the loop), so the earlier frame is in the channel
/// before it. Writes from one side only cost nothing more.
final class OrderedSocketWrites: Sendable {
    private let eventLoop: any EventLoop
    /// Whether the last write was made off the event loop (its frame may still wait in a task of
    /// the loop). Read and set by the one write in progress (the machine's `writing`), so relaxed
    /// ordering is enough: the machine's lock orders one write after the other.
    private let lastWriteOffTheLoop = Atomic<Bool>(false)

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `write` (one frame to the socket) after every write made before it has reached the
    /// channel.
    func write(_ write: () async throws -> Void) async throws {
        let onTheLoop = eventLoop.inEventLoop
        if onTheLoop && lastWriteOffTheLoop.load(ordering: .relaxed) {
            // The loop runs its tasks in order: the earlier frame's task before this one.
            try await eventLoop.submit {}.get()
        }
        lastWriteOffTheLoop.store(!onTheLoop, ordering: .relaxed)
        try await write()
    }
}
