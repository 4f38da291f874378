import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import StoryBridge
import StoryBridgeFleet
import Synchronization

/// A kiosk as the hub sees one, for tests: a real WebSocket client on loopback that answers the
/// challenge with a hello signed by `key` (carrying `schedule` when given), then sends what the
/// test asks and records what the hub sends, until the hub closes the socket or the test
/// disconnects. Given a `screenshot`, it answers each screenshot request with it, as serve does: a
/// `screenshotResult` text frame, then the PNG as a binary frame.
final class FleetTestKiosk: Sendable {
    /// A screenshot the kiosk answers with: the PNG and its size.
    struct Screenshot: Sendable {
        var png: Data
        var width: Int
        var height: Int
        /// When set, the kiosk answers with this error instead (as serve does when its browser fails).
        var error: String? = nil
    }

    /// What the hub sent, in order.
    let received: AsyncStream<FleetMessage>
    private let commands: AsyncStream<FleetMessage>.Continuation
    private let task: Task<WebSocketCloseFrame?, any Error>

    /// Connects to the hub on `port` with `token`, proving `key` over `origin` (default: the
    /// origin it connects to, as a real kiosk does), advertising `metricsURL` when given.
    init(
        port: Int, token: String, key: HostKey, origin: String? = nil, interval: Int = 30, name: String = "lobby-1",
        metricsURL: String? = nil, schedule: JSONValue? = nil, screenshot: Screenshot? = nil
    ) {
        let (received, inbound) = AsyncStream<FleetMessage>.makeStream()
        let (commands, outboundCommands) = AsyncStream<FleetMessage>.makeStream()
        self.received = received
        self.commands = outboundCommands
        let origin = origin ?? "http://127.0.0.1:\(port)"
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        configuration.additionalHeaders = [.authorization: "Bearer \(token)"]
        var logger = Logger(label: "test.fleet-kiosk")
        logger.logLevel = .critical
        task = Task { [configuration, logger] in
            defer { inbound.finish() }
            return try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(FleetWire.connectPath)", configuration: configuration, logger: logger
            ) { messages, outbound, _ in
                var iterator = messages.messages(maxSize: 1 << 20).makeAsyncIterator()
                guard case .text(let text) = try await iterator.next(),
                    case .challenge(let challenge) = try FleetWire.decode(Data(text.utf8))
                else { return }
                inbound.yield(.challenge(challenge))
                let hello = KioskHello.signed(
                    by: key, nonce: challenge.nonce, hubOrigin: origin, instance: UUID().uuidString, name: name, labels: ["site": "test"],
                    version: "0.1.0", intervalSeconds: interval, startedAt: Date(), timeZone: "UTC",
                    schedule: schedule, metricsURL: metricsURL)
                try await outbound.write(.text(String(decoding: try FleetWire.encode(.hello(hello)), as: UTF8.self)))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await command in commands {
                            try await outbound.write(.text(String(decoding: try FleetWire.encode(command), as: UTF8.self)))
                        }
                        if !Task.isCancelled { try await outbound.close(.normalClosure, reason: nil) }
                    }
                    while let message = try await iterator.next() {
                        guard case .text(let text) = message, let decoded = try? FleetWire.decode(Data(text.utf8)) else { continue }
                        // Requests it answers itself are not recorded: a test waiting for an ack reads on.
                        if case .screenshot(let request) = decoded, let screenshot, let error = screenshot.error {
                            let result = ScreenshotResult(id: request.id, error: error)
                            try await outbound.write(
                                .text(String(decoding: try FleetWire.encode(.screenshotResult(result)), as: UTF8.self)))
                            continue
                        }
                        if case .screenshot(let request) = decoded, let screenshot {
                            let result = ScreenshotResult(
                                id: request.id, width: screenshot.width, height: screenshot.height, takenAt: Date())
                            try await outbound.write(
                                .text(String(decoding: try FleetWire.encode(.screenshotResult(result)), as: UTF8.self)))
                            try await outbound.write(.binary(ByteBuffer(bytes: screenshot.png)))
                            continue
                        }
                        inbound.yield(decoded)
                    }
                    group.cancelAll()
                }
            }
        }
    }

    /// Sends `message` to the hub.
    func send(_ message: FleetMessage) { commands.yield(message) }

    /// A minimal beat numbered `seq`.
    func beat(_ seq: Int) {
        send(.beat(Beat(seq: seq, sentAt: Date(), instance: "i", uptimeSeconds: seq, version: "0.1.0", name: "lobby-1")))
    }

    /// Closes the socket from the kiosk's side.
    func disconnect() { commands.finish() }

    /// The close frame the hub sent (nil when the kiosk closed first), once the socket is closed.
    func closeFrame() async throws -> WebSocketCloseFrame? { try await task.value }

    /// The next message the hub sends, or nil when the socket closed.
    func next() async -> FleetMessage? {
        var iterator = received.makeAsyncIterator()
        return await iterator.next()
    }
}
