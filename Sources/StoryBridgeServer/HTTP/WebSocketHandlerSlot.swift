import HummingbirdWebSocket
import Synchronization

/// Where a request context keeps its WebSocket handler reference, so that the reference can be let
/// go once the connection runs.
///
/// hummingbird-websocket (2.8.1) hands a route's handler to the upgrade in a box inside the request
/// context (`WebSocketHandlerReference`), and puts the context itself in that box next to the
/// handler. The box holds the context and the context holds the box: a reference cycle, so every
/// upgraded connection's context (its logger with its metadata, the box, what the context carries)
/// stayed in memory for good, about 820 bytes per connection: 8 MB more per 10,000 page loads in
/// `storybridge-bench long-run`. The WebSocket routes call ``release()`` as their handler starts
/// (the library has taken the handler out of the box by then), which breaks the cycle; the context
/// then goes with the connection.
final class WebSocketHandlerSlot: Sendable {
    private let held = Mutex<WebSocketHandlerReference<HostRequestContext>?>(WebSocketHandlerReference())
    /// How many slots exist: one per request context alive. A test checks it comes back down
    /// after connections end.
    static let alive = Atomic<Int>(0)

    init() {
        Self.alive.add(1, ordering: .relaxed)
    }

    deinit {
        Self.alive.subtract(1, ordering: .relaxed)
    }

    /// The reference the router's upgrade middleware fills and the upgrade reads; a fresh, empty
    /// one after ``release()``.
    var reference: WebSocketHandlerReference<HostRequestContext> {
        held.withLock { $0 } ?? WebSocketHandlerReference()
    }

    /// Lets the reference go, and with it the handler and the copy of the context it holds.
    func release() {
        held.withLock { $0 = nil }
    }
}
