import Foundation
import HummingbirdWebSocket
import StoryBridge
import StoryBridgeFleet
import Synchronization

/// One kiosk's open socket on the hub: what the registry sends it and how it is closed.
///
/// Writes go straight to the socket's writer (Hummingbird's outbound writer may be used from
/// several tasks); ``close(code:reason:)`` closes once, whoever asks first (the registry on a
/// revoke or a newer connection, the route when the hello is refused).
package final class KioskConnection: Sendable {
    /// Tells this connection apart from a newer one of the same device.
    package let id = UUID()
    /// The device.
    package let deviceId: String
    private let outbound: WebSocketOutboundWriter
    private let closed = Atomic(false)
    /// The screenshot requests sent to the kiosk, waiting for its answers.
    let screenshots = ScreenshotExchange()

    init(deviceId: String, outbound: WebSocketOutboundWriter) {
        self.deviceId = deviceId
        self.outbound = outbound
    }

    /// Sends `message` as one text frame.
    func send(_ message: FleetMessage) async throws {
        let data = try FleetWire.encode(message)
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }

    /// Asks the kiosk for a screenshot and waits for it, at most `limit`.
    func screenshot(within limit: Duration) async -> ScreenshotOutcome {
        let id = UUID().uuidString
        return await screenshots.request(id: id, within: limit) { [self] in
            try await send(.screenshot(ScreenshotRequest(id: id)))
        }
    }

    /// Whether ``close(code:reason:)`` was called.
    var isClosed: Bool { closed.load(ordering: .relaxed) }

    /// Closes the socket with `code` and `reason` (cut to the 123 bytes a close frame holds);
    /// later calls do nothing.
    func close(code: UInt16, reason: String) async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        var reason = reason
        while reason.utf8.count > 123 { reason.removeLast() }
        try? await outbound.close(.unknown(code), reason: reason)
    }
}
