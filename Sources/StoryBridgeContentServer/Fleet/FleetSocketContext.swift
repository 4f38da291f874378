import Hummingbird
import HummingbirdWebSocket
import Synchronization

/// The request context of the hub's WebSocket router (`/v1/fleet/connect`).
///
/// Hummingbird's handler reference keeps a copy of the context, which holds the reference: the
/// route lets it go as soon as the socket is open (``FleetHandlerSlot``), as serve's sockets do,
/// so a closed kiosk connection leaves nothing behind.
struct FleetSocketContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let slot = FleetHandlerSlot()
    var webSocket: WebSocketHandlerReference<FleetSocketContext> { slot.reference }

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

/// Holds one ``FleetSocketContext``'s handler reference until the socket is open.
final class FleetHandlerSlot: Sendable {
    private let held = Mutex<WebSocketHandlerReference<FleetSocketContext>?>(WebSocketHandlerReference())

    /// The reference the upgrade fills and reads; a fresh, empty one after ``release()``.
    var reference: WebSocketHandlerReference<FleetSocketContext> {
        held.withLock { $0 } ?? WebSocketHandlerReference()
    }

    /// Lets the reference go.
    func release() {
        held.withLock { $0 = nil }
    }
}
