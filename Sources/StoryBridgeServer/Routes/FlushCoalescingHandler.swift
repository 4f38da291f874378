import NIOCore

/// Coalesces a page socket's flushes within one turn of its event loop: the first flush of a turn
/// goes to the socket at once, and those that follow in the same turn are held and flushed once,
/// after the tasks already waiting have run. A lone answer (a page making one call at a time)
/// leaves without waiting for anything; answers written one after another (each flushed by the
/// WebSocket writer) leave in two system calls and as few TCP segments as the kernel makes of
/// them, instead of one each.
///
/// Added first in a page connection's pipeline (nearest the socket), so it sees the encoded
/// frames; it never reorders or drops a write, and a close flushes what is held before it goes
/// on. The cost is one event-loop task per turn that flushed, run after the flush; a held answer
/// waits at most until the loop's current batch of tasks has run (measured in docs/BENCHMARKS.md).
final class FlushCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Whether a flush went out in this turn of the loop (and the turn's end is scheduled).
    private var flushedThisTurn = false
    /// Whether a flush is held for the end of this turn.
    private var holding = false

    func flush(context: ChannelHandlerContext) {
        guard !flushedThisTurn else {
            holding = true
            return
        }
        flushedThisTurn = true
        context.flush()
        context.eventLoop.assumeIsolated().execute {
            self.turnEnded(context)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        flushHeld(context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        flushHeld(context)
    }

    /// The tasks that were waiting when the turn's first flush went out have run.
    private func turnEnded(_ context: ChannelHandlerContext) {
        flushedThisTurn = false
        flushHeld(context)
    }

    private func flushHeld(_ context: ChannelHandlerContext) {
        guard holding else { return }
        holding = false
        context.flush()
    }
}
