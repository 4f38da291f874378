import Hummingbird
import HummingbirdWebSocket

/// The request context of the host's HTTP router and WebSocket router alike.
///
/// Besides Hummingbird's own storage it carries ``refusal``: on the WebSocket router, middleware
/// that refuses a page does not fail the upgrade (a browser would see only an anonymous error);
/// it records why, and the route answers by closing the socket with a code and reason the page can
/// read. See ``RequestRefusal/closeCode``.
struct HostRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    /// Holds ``webSocket`` so that the WebSocket routes can let it go; see ``WebSocketHandlerSlot``.
    let webSocketSlot = WebSocketHandlerSlot()
    var webSocket: WebSocketHandlerReference<HostRequestContext> { webSocketSlot.reference }
    /// Why the WebSocket this request upgrades to must be closed at once; `nil` when admitted.
    var refusal: RequestRefusal?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

extension Request {
    /// Whether the request asks to become a WebSocket.
    var isWebSocketUpgrade: Bool {
        headers[.upgrade]?.lowercased() == "websocket"
    }
}
