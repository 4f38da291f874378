import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import StoryBridge

/// The WebSocket side of the bridge: one connection per page load, feeding the page's frames to
/// the bridge and writing answers and host events back.
struct BridgeSocket: Sendable {
    let host: StoryBridgeHost
    let maxMessageSize: Int
    let maxInFlight: Int
    let metrics: HostMetrics

    func serve(
        _ page: PageConnectionRequest, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        eventLoop: any EventLoop, placement: ConnectionPlacement = .whereCalled
    ) async {
        let viewer = await host.viewers.lease(id: page.viewerId)
        defer { host.viewers.release(viewer) }
        let context = host.context(for: viewer)
        // The memory half of the page load first: from here on, commands answer for this slide.
        let entered = await host.enterPage(
            viewer, presentationId: page.presentationId, slide: page.slide, pageLoad: page.pageLoad,
            viaDeepLink: page.viaDeepLink)
        // The analytics (SQLite writes), then `hello` and the viewer's events, while the page's
        // frames are read: read-only requests of a page load that keeps its session are answered
        // meanwhile; every other request waits for the page load to be recorded.
        let connection = PageConnection(
            bridge: host.bridge, context: context, maxInFlight: maxInFlight,
            pageLoad: .recording(readsMayGoFirst: entered.keepsSession)
        ) { [writes = OrderedSocketWrites(eventLoop: eventLoop)] message, _ in
            try await writes.write {
                try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: message)))
            }
        }
        let deliver: @Sendable (JSONValue) -> Void = { connection.send(event: $0.jsonString()) }
        let connectionId = UUID()

        await withDiscardingTaskGroup { group in
            // The one writer, a child of this connection: ended by `connection.close()` below and
            // awaited before `serve` returns.
            group.addTask {
                metrics.writerStarted()
                defer { metrics.writerEnded() }
                await connection.runWriter()
            }
            // The feed hears of the page before any of its exchanges: read-only requests may be
            // answered (and fed) before the page load is recorded, and a recording of the feed
            // must put them on this slide, not on the one before. A new page load was announced
            // when it was entered (by this socket or by its early requests); a reconnect is here.
            if !entered.entry.isNewPageLoad && !entered.entry.enteredEarly {
                host.feed.record(
                    .connection(viewerId: viewer.id, connected: true, presentationId: page.presentationId, slide: page.slide))
            }
            group.addTask {
                await host.recordPageLoad(entered)
                let state = await viewer.state
                deliver(
                    HostEvent(
                        name: "hello",
                        data: [
                            "viewer": .string(viewer.id), "presentation": .int(page.presentationId),
                            "slide": .string(page.slide), "navigationData": state.navigationData,
                            "chrome": state.chrome.json, "newPageLoad": .bool(entered.entry.isNewPageLoad),
                        ]
                    ).json)
                await viewer.attach(connection: connectionId) { event in deliver(event.json) }
                // A page whose slide was served before a Story context change that went out
                // while its viewer was on another presentation has not seen it: sent now.
                if let version = page.storyVersion, let presentation = host.library.presentation(id: page.presentationId),
                    let current = await host.storyContext.catchUp(pageVersion: version, presentation: presentation)
                {
                    deliver(current.json)
                }
                context.logger.debug(
                    "page connected", metadata: ["slide": "\(page.slide)", "presentation": "\(page.presentationId)"])
                metrics.viewerConnected()
                connection.pageLoadRecorded()
            }
            var reader = PageConnection.Reader()
            var frames = inbound.messages(maxSize: maxMessageSize).makeAsyncIterator()
            do {
                try await read(&frames, into: connection, reader: &reader, placement: placement) { work, executor in
                    group.addTask(executorPreference: executor) { await work() }
                }
            } catch {
                context.logger.debug("page connection ended with an error", metadata: ["error": "\(error)"])
            }
            // The page load's own work (recording, hello, attaching) is finished before the
            // connection is taken down, as when it ran before the first frame was read.
            await connection.waitForPageLoad()
            connection.finishReading()
            host.pageConsole.pageClosed(context)
            metrics.viewerDisconnected()
            host.feed.record(
                .connection(viewerId: viewer.id, connected: false, presentationId: page.presentationId, slide: page.slide))
            await viewer.detach(connection: connectionId)
            connection.close()
            group.cancelAll()
        }
    }
}
