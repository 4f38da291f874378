import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// The single, ordered way out of one page connection: answers and host events are queued here
/// and written by one writer at a time, so they reach the page in the order they were sent.
///
/// Whoever finds the channel idle becomes its writer. The task that answers a page's requests
/// writes its answers itself (``sendNow(_:)``, no hand-over to another task, which is what a cheap
/// command costs most); messages sent from synchronous code (``send(_:)``) start a short-lived
/// writer task when nobody is writing. Messages travel as the bytes of one text frame each.
final class OutboundChannel: Sendable {
    private struct State {
        var pending: [ByteBuffer] = []
        var writing = false
        var closed = false
    }

    private let state = Mutex(State())
    private let outbound: WebSocketOutboundWriter

    /// A channel writing its messages to `outbound`, as text frames.
    init(_ outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    /// Queues `text`; starts a writer task when nobody is writing.
    func send(_ text: String) {
        let frame = ByteBuffer(string: text)
        guard claimWriter(queueing: frame) else { return }
        Task {
            guard await self.write(frame) else { return }
            await self.drain()
        }
    }

    /// Writes `bytes` from the calling task when nobody is writing (then whatever was queued
    /// meanwhile); queues them otherwise.
    func sendNow(_ bytes: [UInt8]) async {
        let frame = ByteBuffer(bytes: bytes)
        guard claimWriter(queueing: frame) else { return }
        guard await write(frame) else { return }
        await drain()
    }

    /// Drops whatever is queued and refuses more (the connection has ended).
    func close() {
        state.withLock { state in
            state.closed = true
            state.pending = []
        }
    }

    /// Makes the caller the writer of `frame` and returns true when nobody is writing; otherwise
    /// queues `frame` for the current writer.
    private func claimWriter(queueing frame: ByteBuffer) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            guard !state.writing else {
                state.pending.append(frame)
                return false
            }
            state.writing = true
            return true
        }
    }

    /// Writes one frame; false (and the channel closed) when the connection is gone.
    private func write(_ frame: ByteBuffer) async -> Bool {
        do {
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: frame)))
            return true
        } catch {
            close()
            return false
        }
    }

    /// Writes what was queued while this writer wrote, until nothing is left; then stops writing.
    private func drain() async {
        while true {
            let batch = state.withLock { state -> [ByteBuffer] in
                guard !state.closed, !state.pending.isEmpty else {
                    state.writing = false
                    return []
                }
                defer { state.pending = [] }
                return state.pending
            }
            if batch.isEmpty { return }
            for frame in batch {
                guard await write(frame) else { return }
            }
        }
    }
}
