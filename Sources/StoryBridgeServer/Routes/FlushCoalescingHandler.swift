import NIOCore

/// Holds a page socket's flushes until the event loop has run the tasks already waiting, then
/// flushes once: answers written one after another (each flushed by the WebSocket writer) leave
/// in one system call and as few TCP segments as the kernel makes of it, instead of one each.
///
/// Added first in a page connection's pipeline (nearest the socket), so it sees the encoded
/// frames; it never reorders or drops a write, and a close flushes what is held before it goes
/// on. The cost is one event-loop task per held flush; an answer waits at most until the loop's
/// current batch of tasks has run (measured in docs/BENCHMARKS.md).
final class FlushCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Whether a flush is held and its event-loop task scheduled.
    private var holding = false

    func flush(context: ChannelHandlerContext) {
        guard !holding else { return }
        holding = true
        context.eventLoop.assumeIsolated().execute {
            self.flushHeld(context)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        flushHeld(context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        flushHeld(context)
    }

    private func flushHeld(_ context: ChannelHandlerContext) {
        guard holding else { return }
        holding = false
        context.flush()
    }
}
