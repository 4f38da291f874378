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
        _ page: PageConnectionRequest, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async {
        let viewer = await host.viewers.lease(id: page.viewerId)
        defer { host.viewers.release(viewer) }
        let context = host.context(for: viewer)
        let channel = OutboundChannel(outbound)
        let deliver: @Sendable (JSONValue) -> Void = { channel.send($0.jsonString()) }
        let connection = UUID()
        // Answers travel as the bytes the one serialiser wrote: from the task answering in order,
        // written by it; from anywhere else, queued.
        let answers = AnswerSink(
            write: { await channel.sendNow($0) }, send: { channel.send($0) })
        let dispatcher = FrameDispatcher(
            bridge: host.bridge, context: context, maxInFlight: maxInFlight, answers: answers, events: { deliver($0.json) })

        await withDiscardingTaskGroup { group in
            // The one writer, a child of this connection: ended by `channel.close()` below and
            // awaited before `serve` returns.
            group.addTask { await channel.run(counted: metrics) }
            // The memory half of the page load first: from here on, commands answer for this slide.
            let entered = await host.enterPage(
                viewer, presentationId: page.presentationId, slide: page.slide, pageLoad: page.pageLoad,
                viaDeepLink: page.viaDeepLink)
            // The analytics (SQLite writes), then `hello` and the viewer's events, while the page's
            // frames are read: read-only requests of a page load that keeps its session are
            // answered meanwhile; every other request waits for the gate.
            let gate = PageLoadGate(earlyAnswers: entered.keepsSession)
            // The feed hears of the page before any of its exchanges: read-only requests may be
            // answered (and fed) before the page load is recorded, and a recording of the feed
            // must put them on this slide, not on the one before.
            host.feed.record(
                .connection(viewerId: viewer.id, connected: true, presentationId: page.presentationId, slide: page.slide))
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
                await viewer.attach(connection: connection) { event in deliver(event.json) }
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
                gate.open()
            }
            // Once open, the gate stays open: the loop stops asking it.
            var gateOpen = false
            // Where answers made at once are written, one after another (the frame copies them).
            var answerBytes: [UInt8] = []
            answerBytes.reserveCapacity(512)
            do {
                for try await message in inbound.messages(maxSize: maxMessageSize) {
                    switch message {
                    case .text(let text):
                        // Routed once: the gate and the dispatcher read the same routes.
                        let frame = dispatcher.route(BridgeRequest.read(frame: text))
                        if !gateOpen {
                            await gate.admit(frame)
                            gateOpen = gate.isOpen
                        }
                        // A memory answer is made by a plain call and written from here; any
                        // other request is queued or spawned.
                        switch dispatcher.answerNow(frame, writingInto: &answerBytes) {
                        case true?: await channel.sendNow(answerBytes)
                        case false?: break
                        case nil:
                            await dispatcher.dispatch(frame, writingInto: &answerBytes) { work in group.addTask { await work() } }
                        }
                    case .binary:
                        await gate.admit(nil)
                        dispatcher.reject(.notARequest("binary frames are not supported: send JSON text frames"))
                    }
                }
            } catch {
                context.logger.debug("page connection ended with an error", metadata: ["error": "\(error)"])
            }
            // The page load's own work (recording, hello, attaching) is finished before the
            // connection is taken down, as when it ran before the first frame was read.
            await gate.admit(nil)
            dispatcher.finish()
            host.pageConsole.pageClosed(context)
            metrics.viewerDisconnected()
            host.feed.record(
                .connection(viewerId: viewer.id, connected: false, presentationId: page.presentationId, slide: page.slide))
            await viewer.detach(connection: connection)
            channel.close()
            group.cancelAll()
        }
    }
}
