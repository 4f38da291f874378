import Synchronization

/// The single, ordered way out of one page connection: answers and host events are queued here
/// and written by one writer at a time, so they reach the page in the order they were sent.
///
/// Whoever finds the channel idle becomes its writer. The task that answers a page's requests
/// writes its answers itself (``sendNow(_:)``, no hand-over to another task, which is what a cheap
/// command costs most); messages sent from synchronous code (``send(_:)``) start a short-lived
/// writer task when nobody is writing.
final class OutboundChannel: Sendable {
    private struct State {
        var pending: [String] = []
        var writing = false
        var closed = false
    }

    private let state = Mutex(State())
    private let write: @Sendable (String) async throws -> Void

    /// `write` puts one text frame on the wire.
    init(write: @escaping @Sendable (String) async throws -> Void) {
        self.write = write
    }

    /// Queues `text`; starts a writer task when nobody is writing.
    func send(_ text: String) {
        guard claimWriter(appending: text) else { return }
        Task { await self.drain() }
    }

    /// Queues `text` and, when nobody is writing, writes the queue from the calling task.
    func sendNow(_ text: String) async {
        guard claimWriter(appending: text) else { return }
        await drain()
    }

    /// Drops whatever is queued and refuses more (the connection has ended).
    func close() {
        state.withLock { state in
            state.closed = true
            state.pending = []
        }
    }

    private func claimWriter(appending text: String) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.pending.append(text)
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [String] in
                guard !state.closed, !state.pending.isEmpty else {
                    state.writing = false
                    return []
                }
                defer { state.pending = [] }
                return state.pending
            }
            if batch.isEmpty { return }
            for text in batch {
                do {
                    try await write(text)
                } catch {
                    close()
                    return
                }
            }
        }
    }
}
