import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import StoryBridge

/// The WebSocket router: the bridge (`/__storybridge/ws`), the inspector's live feed
/// (`/__storybridge/inspector/ws`) and, for the benchmark, a plain echo (`/__storybridge/echo`;
/// with `?flushes=coalesced`, its flushes held as a page socket's are: ``FlushCoalescingHandler``).
///
/// A foreign `Host` is refused before the handshake (no socket at all). Any other refusal (token,
/// origin, parameters, connection limit) is decided once, and answered once, by closing the
/// socket right after the handshake with code 4000 + status and the reason: see
/// ``RequestRefusal/closeCode``.
struct WebSocketRoutes: Sendable {
    let host: StoryBridgeHost
    let bridge: BridgeSocket
    let token: LaunchToken
    let names: AllowedHostNames
    let refusals: RefusalLog
    let connections: ConnectionCounter
    let echo: Bool
    /// Whether a page connection's tasks run on its socket's event loop (``EventLoopTaskExecutor``).
    let onEventLoop: Bool
    /// The bound under which a frame the reading task asks for counts as already waiting
    /// (``ReadingPlacement/waitingFrame`` unless a test sets its own).
    let waitingFrame: Duration
    /// The control socket of `storybridge kiosk`, when serve offers one.
    let kioskControl: KioskControl?
    let logger: Logger

    func makeRouter() -> Router<HostRequestContext> {
        let router = Router(context: HostRequestContext.self)
        router.add(middleware: HostNameMiddleware(names: names, refusals: refusals))
        let reserved = router.group("__storybridge").add(middleware: TokenMiddleware(token: token, refusals: refusals))
        Self.socket(reserved, "ws") { inbound, outbound, context in
            let page: PageConnectionRequest
            switch admit(context) {
            case .failure(let refusal):
                try await Self.close(outbound, refusal)
                return
            case .success(let admitted):
                page = admitted
            }
            defer { connections.close() }
            let channel = context.requestContext.channel
            try await Self.coalesceFlushes(of: channel)
            // With `onEventLoop` all of the connection runs on its socket's event loop; by default
            // its reading task does while the page waits for its answers (``ConnectionPlacement``).
            let eventLoop = EventLoopTaskExecutor(channel.eventLoop)
            if onEventLoop {
                await withTaskExecutorPreference(eventLoop) {
                    await bridge.serve(page, inbound: inbound, outbound: outbound, eventLoop: channel.eventLoop, placement: .whereCalled)
                }
            } else {
                await bridge.serve(
                    page, inbound: inbound, outbound: outbound, eventLoop: channel.eventLoop,
                    placement: .adaptive(eventLoop, waitingFrame: waitingFrame))
            }
        }
        Self.socket(reserved, "inspector/ws") { inbound, outbound, context in
            if let refusal = context.requestContext.refusal { return try await Self.close(outbound, refusal) }
            await InspectorStream.serve(feed: host.feed, inbound: inbound, outbound: outbound)
        }
        if echo {
            Self.socket(reserved, "echo") { inbound, outbound, context in
                if let refusal = context.requestContext.refusal { return try await Self.close(outbound, refusal) }
                // `?flushes=coalesced`: the page sockets' write path, for a benchmark that asks for it.
                if context.request.uri.queryParameters["flushes"] == "coalesced" {
                    try await Self.coalesceFlushes(of: context.requestContext.channel)
                }
                for try await message in inbound.messages(maxSize: bridge.maxMessageSize) {
                    if case .text(let text) = message { try await outbound.write(.text(text)) }
                }
            }
        }
        if let kioskControl { KioskControlRoute(control: kioskControl, host: host, logger: logger).add(to: router) }
        return router
    }

    /// Adds the WebSocket route `path` to `group`; its handler first lets the context's handler
    /// reference go, which breaks the library's reference cycle (``WebSocketHandlerSlot``).
    private static func socket(
        _ group: RouterGroup<HostRequestContext>, _ path: RouterPath,
        _ handler: @escaping WebSocketDataHandler<WebSocketRouterContext<HostRequestContext>>
    ) {
        group.ws(path) { inbound, outbound, context in
            context.requestContext.webSocketSlot.release()
            try await handler(inbound, outbound, context)
        }
    }

    /// The page, once every check has passed and it holds a place under the connection limit.
    private func admit(_ context: WebSocketRouterContext<HostRequestContext>) -> Result<PageConnectionRequest, RequestRefusal> {
        if let refusal = context.requestContext.refusal { return .failure(refusal) }
        let admitted = PageAdmission(library: host.library).admit(context.request)
        if case .failure(let refusal) = admitted {
            refusals.record(refusal, context.request)
            return admitted
        }
        guard connections.open() else {
            let refusal = RequestRefusal.tooManyConnections(connections.limit)
            refusals.record(refusal, context.request)
            return .failure(refusal)
        }
        return admitted
    }

    /// Adds a ``FlushCoalescingHandler`` nearest the socket of `channel`.
    private static func coalesceFlushes(of channel: any Channel) async throws {
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(FlushCoalescingHandler(), position: .first)
        }.get()
    }

    private static func close(_ outbound: WebSocketOutboundWriter, _ refusal: RequestRefusal) async throws {
        try await outbound.close(refusal.closeCode, reason: refusal.closeReason)
    }
}
