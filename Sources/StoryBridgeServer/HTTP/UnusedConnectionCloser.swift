import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Closes a connection that has not sent a byte when the server begins a graceful shutdown.
///
/// Hummingbird's HTTP/1 channel with the WebSocket upgrade adds its connection-state handler (the
/// one that closes idle keep-alive connections at shutdown) only once the first request has been
/// read. A connection that never sent a request, such as a browser's preconnected socket, was
/// therefore left open, and the graceful shutdown waited for the browser to drop it: `serve`
/// took minutes to stop after Ctrl-C while a browser kept such a socket. This handler sits first in
/// the pipeline until the first bytes arrive, then leaves it.
final class UnusedConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Told as if the peer had closed its side, the upgrade handler ends the connection as a
        // peer that left (Hummingbird notes that at trace level, not as an error), then the
        // connection is closed in any case.
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }
}

/// A server child channel that puts ``UnusedConnectionCloser`` in front of `inner`'s pipeline.
struct UnusedConnectionClosingChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(UnusedConnectionCloser(), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Inner.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server with the WebSocket upgrade (`http1WebSocketUpgrade`), whose
    /// connections that have not sent a byte are closed at a graceful shutdown
    /// (``UnusedConnectionCloser``).
    static func http1WebSocketUpgradeClosingUnused(
        webSocketRouter: Router<HostRequestContext>, configuration: HTTP1WebSocketUpgradeChannel.Configuration
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return .init { responder in
            UnusedConnectionClosingChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: configuration))
        }
    }
}
