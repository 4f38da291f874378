import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import StoryBridge

/// `GET /__storybridge/kiosk` (WebSocket; docs/design/FLEET.md §9.3): the control socket of
/// `storybridge kiosk`. Outside the launch token's group: the kiosk presents the run file's
/// control token as `Authorization: Bearer`, from this machine, with no page's `Origin` (the `Host`
/// check of the router applies as everywhere). A refused socket is closed with 4403 and the
/// reason once the client has sent its first message (``close(_:_:code:reason:)``). The kiosk's
/// `idle {viewer}` ends that viewer's session on `host` (§9.4) before `idleDone` answers it.
struct KioskControlRoute: Sendable {
    let control: KioskControl
    let host: StoryBridgeHost
    let logger: Logger

    /// The largest message a kiosk sends: a screenshot's PNG, 16 MiB.
    static let maxMessageSize = 16 << 20

    /// How long a refused client has to send its first message before it is closed anyway.
    static let refusalWait = Duration.seconds(5)

    /// Closes a refused socket once the client has sent its first message (or after
    /// ``refusalWait``). A close sent right after the handshake can reach a client before its
    /// socket is set up, and WebSocket clients (HummingbirdWSClient among them) then lose it and
    /// wait for ever; a kiosk sends `attach` first, so its socket is ready by then.
    static func close(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, code: UInt16, reason: String)
        async throws
    {
        let timer = Task {
            try await Task.sleep(for: refusalWait)
            try await outbound.close(.unknown(code), reason: reason)
        }
        var messages = inbound.messages(maxSize: maxMessageSize).makeAsyncIterator()
        _ = try? await messages.next()
        timer.cancel()
        try await outbound.close(.unknown(code), reason: reason)
    }

    /// Ends the session of the viewer whose kiosk screen was idle, its last input taken as the
    /// kiosk's idle time ago, then answers `idleDone` (also when there was no session to end, or
    /// ending it failed: the kiosk opens a fresh page either way).
    private func endIdleSession(_ report: KioskControlState.IdleReport) async {
        let lastActivity = host.clock.now.addingTimeInterval(-Double(report.idleSeconds))
        do {
            let ended = try await host.endSession(idleViewer: report.viewer, lastActivity: lastActivity)
            logger.info(
                "kiosk idle reset", metadata: ["viewer": "\(report.viewer)", "session": "\(ended ?? "none in progress")"])
        } catch {
            logger.error("kiosk idle reset: the session could not be ended", metadata: ["viewer": "\(report.viewer)", "error": "\(error)"])
        }
        control.idleHandled(report)
    }

    /// Adds the route to `router`.
    func add(to router: Router<HostRequestContext>) {
        router.ws("__storybridge/kiosk") { inbound, outbound, context in
            context.requestContext.webSocketSlot.release()
            if let refusal = context.requestContext.refusal {
                try await outbound.close(refusal.closeCode, reason: refusal.closeReason)
                return
            }
            if let refusal = control.refusal(of: context.request.head, loopback: context.requestContext.peerIsLoopback) {
                logger.warning("kiosk control socket refused", metadata: ["reason": "\(refusal)"])
                try await Self.close(inbound, outbound, code: 4403, reason: String(describing: refusal))
                return
            }
            let (connection, outbox) = control.open()
            defer { control.closed(connection) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await item in outbox {
                        switch item {
                        case .send(let message):
                            try await outbound.write(.text(String(decoding: message.encoded(), as: UTF8.self)))
                        case .close(let code, let reason):
                            try await outbound.close(.unknown(code), reason: reason)
                            return
                        }
                    }
                }
                for try await message in inbound.messages(maxSize: Self.maxMessageSize) {
                    guard case .text(let text) = message else {
                        if case .binary(let buffer) = message { control.receivedBinary(Data(buffer.readableBytesView), on: connection) }
                        continue
                    }
                    do {
                        if let report = try control.received(text, on: connection) { await endIdleSession(report) }
                    } catch {
                        logger.warning("kiosk control: \(error)")
                    }
                }
                group.cancelAll()
            }
        }
    }
}
