import Hummingbird
import HummingbirdWebSocket
import NIOCore

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
    /// Whether the peer's address is a loopback one (127.0.0.0/8, `::1`, or IPv4 loopback mapped
    /// into IPv6).
    let peerIsLoopback: Bool
    /// The request's channel: a page connection adds its ``FlushCoalescingHandler`` to it, and
    /// its tasks may prefer its event loop (``EventLoopTaskExecutor``).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
        self.peerIsLoopback = Self.isLoopback(source.channel.remoteAddress)
    }

    /// Whether `address` is a loopback address.
    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let text = address?.ipAddress else { return false }
        return text.hasPrefix("127.") || text == "::1" || text.lowercased().hasPrefix("::ffff:127.")
    }
}

extension Request {
    /// Whether the request asks to become a WebSocket.
    var isWebSocketUpgrade: Bool {
        headers[.upgrade]?.lowercased() == "websocket"
    }
}
