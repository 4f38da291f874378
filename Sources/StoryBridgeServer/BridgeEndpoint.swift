import Foundation
import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import StoryBridge

/// The WebSocket side of the host: one connection per page load, feeding the page's frames to the
/// bridge and writing answers and host events back.
struct BridgeEndpoint: Sendable {
    let host: StoryBridgeHost
    let gate: ConnectionGate
    let maxMessageSize: Int
    let maxInFlight: Int
    let echo: Bool
    let metrics: HostMetrics

    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    func shouldUpgrade(_ head: HTTPRequest) -> ShouldUpgradeResult<Handler> {
        if echo, let rawPath = head.path, URI(rawPath).path == ContentPaths.reservedPrefix + "echo",
            URI(rawPath).queryParameters["token"].map(String.init) == gate.token
        {
            return .upgrade([:]) { inbound, outbound, _ in
                for try await message in inbound.messages(maxSize: maxMessageSize) {
                    if case .text(let text) = message { try await outbound.write(.text(text)) }
                }
            }
        }
        if let rawPath = head.path, URI(rawPath).path == ContentPaths.reservedPrefix + "inspector/ws" {
            guard URI(rawPath).queryParameters["token"].map(String.init) == gate.token else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                await InspectorStream.serve(feed: host.feed, inbound: inbound, outbound: outbound)
            }
        }
        guard let rawPath = head.path, ConnectionGate.isEndpoint(rawPath) else { return .dontUpgrade }
        switch gate.admit(rawPath: rawPath, origin: head.headerFields[.origin], authority: head.authority) {
        case .failure(let refusal):
            host.logger.warning("WebSocket refused", metadata: ["reason": "\(refusal.message)"])
            // The request falls through to the HTTP responder, which answers the refusal.
            return .dontUpgrade
        case .success(let page):
            guard gate.connections.open() else {
                host.logger.warning("WebSocket refused", metadata: ["reason": "connection limit \(gate.connections.limit)"])
                return .dontUpgrade
            }
            return .upgrade([:]) { inbound, outbound, _ in
                await self.serve(page, inbound: inbound, outbound: outbound)
                self.gate.connections.close()
            }
        }
    }

    private func serve(
        _ page: PageConnectionRequest, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async {
        let viewer = await host.viewers.viewer(id: page.viewerId)
        let context = host.context(for: viewer)
        let channel = OutboundChannel { frame in
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: frame)))
        }
        let deliver: @Sendable (JSONValue) -> Void = { channel.send($0.jsonString()) }
        let connection = UUID()
        let dispatcher = FrameDispatcher(
            bridge: host.bridge, context: context, maxInFlight: maxInFlight, deliver: deliver,
            respond: { await channel.sendNow($0.jsonBytes) })

        await withDiscardingTaskGroup { group in
            let entry = await host.pageLoaded(
                viewer, presentationId: page.presentationId, slide: page.slide, pageLoad: page.pageLoad,
                viaDeepLink: page.viaDeepLink)
            let state = await viewer.state
            deliver(
                HostEvent(
                    name: "hello",
                    data: [
                        "viewer": .string(viewer.id), "presentation": .int(page.presentationId),
                        "slide": .string(page.slide), "navigationData": state.navigationData,
                        "chrome": state.chrome.json, "newPageLoad": .bool(entry.isNewPageLoad),
                    ]
                ).json)
            await viewer.attach(connection: connection) { event in deliver(event.json) }
            context.logger.debug(
                "page connected", metadata: ["slide": "\(page.slide)", "presentation": "\(page.presentationId)"])
            metrics.viewerConnected()
            host.feed.record(
                .connection(viewerId: viewer.id, connected: true, presentationId: page.presentationId, slide: page.slide))
            do {
                for try await message in inbound.messages(maxSize: maxMessageSize) {
                    switch message {
                    case .text(let text):
                        await dispatcher.dispatch(frame: text) { work in group.addTask { await work() } }
                    case .binary:
                        dispatcher.reject(.notARequest("binary frames are not supported: send JSON text frames"))
                    }
                }
            } catch {
                context.logger.debug("page connection ended with an error", metadata: ["error": "\(error)"])
            }
            dispatcher.finish()
            metrics.viewerDisconnected()
            host.feed.record(
                .connection(viewerId: viewer.id, connected: false, presentationId: page.presentationId, slide: page.slide))
            await viewer.detach(connection: connection)
            channel.close()
            group.cancelAll()
        }
    }
}
