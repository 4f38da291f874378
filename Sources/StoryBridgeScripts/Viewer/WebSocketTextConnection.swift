import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket client connection that exchanges text messages: the peer tests and
/// `storybridge test` use to talk to the bridge endpoint, and the DevTools connection to Chromium.
/// The protocol is ``WebSocketClientHandler`` on a NIO channel of its own.
package final class WebSocketTextConnection: Sendable {
    /// Text messages received, in order; finished when the connection closes.
    let inbox: Mailbox<String>
    private let channel: any Channel
    /// Reads the handler's events into ``inbox`` and ``closeFrame``; ends with the connection.
    private let reader: Task<Void, Never>
    private let closeFrame: CloseFrameSlot

    /// The server's close frame and whether the connection has ended, filled by ``reader``.
    private final class CloseFrameSlot: Sendable {
        let frame = Mutex<WebSocketClientCloseFrame?>(nil)
        /// Set once the connection has ended (after ``frame``).
        let ended = Atomic(false)
    }

    private init(channel: any Channel, reader: Task<Void, Never>, inbox: Mailbox<String>, closeFrame: CloseFrameSlot) {
        self.channel = channel
        self.reader = reader
        self.inbox = inbox
        self.closeFrame = closeFrame
    }

    /// How long the opening handshake may take before ``connect(url:headers:maxMessageSize:)`` fails.
    static let handshakeTimeout = TimeAmount.seconds(30)

    /// Connects to `url` (`ws://…`), failing when the server refuses the upgrade. Messages larger
    /// than `maxMessageSize` bytes close the connection (1009).
    package static func connect(
        url: String, headers: HTTPFields = [:], maxMessageSize: Int = 1 << 26
    ) async throws -> WebSocketTextConnection {
        guard let components = URLComponents(string: url), components.scheme == "ws", let host = components.host, !host.isEmpty
        else { throw WebSocketClientFailure.invalidURL(url) }
        let port = components.port ?? 80
        let path =
            (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var lines = [
            "GET \(path) HTTP/1.1", "Host: \(components.port.map { "\(host):\($0)" } ?? host)", "Upgrade: websocket",
            "Connection: Upgrade", "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13",
        ]
        // The origin a page of the host would send, unless the caller sends its own.
        if headers[.origin] == nil { lines.append("Origin: ws://\(host)") }
        lines += headers.map { "\($0.name.rawName): \($0.value)" }
        let request = ByteBuffer(string: (lines + ["", ""]).joined(separator: "\r\n"))

        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = eventLoop.makePromise(of: Void.self)
        let (events, continuation) = AsyncStream<WebSocketClientEvent>.makeStream()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            WebSocketClientHandler(
                                request: request, key: key, maxMessageSize: maxMessageSize, handshake: handshake, events: continuation))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)
            continuation.finish()
            throw error
        }
        let timeout = eventLoop.scheduleTask(in: handshakeTimeout) {
            handshake.fail(WebSocketClientFailure.badHandshake("no answer within \(handshakeTimeout.nanoseconds / 1_000_000_000) s"))
            channel.close(promise: nil)
        }
        let slot = CloseFrameSlot()
        let inbox = Mailbox<String>()
        // Made before the handshake is awaited: a page the host refuses is closed at once, and its
        // close frame can arrive (and the connection end) before this function returns.
        let reader = Task {
            for await event in events {
                switch event {
                case .message(let text): await inbox.put(text)
                case .closeFrame(let frame): slot.frame.withLock { $0 = frame }
                case .ended: slot.ended.store(true, ordering: .sequentiallyConsistent)
                }
            }
            slot.ended.store(true, ordering: .sequentiallyConsistent)
            await inbox.finish()
        }
        do {
            try await handshake.futureResult.get()
            timeout.cancel()
        } catch {
            timeout.cancel()
            try? await channel.close().get()
            await reader.value
            throw error
        }
        return WebSocketTextConnection(channel: channel, reader: reader, inbox: inbox, closeFrame: slot)
    }

    /// Connects to `url` where the server is expected to refuse the page by closing the socket
    /// at once, and returns the closed connection (its ``serverCloseFrame`` and whatever it
    /// received before the close), or `nil` when it did not close within `timeout`.
    package static func refused(
        url: String, headers: HTTPFields = [:], timeout: Duration = .seconds(30)
    ) async throws -> WebSocketTextConnection? {
        let connection = try await connect(url: url, headers: headers)
        return await connection.waitUntilClosed(timeout: timeout) ? connection : nil
    }

    /// Sends a text message.
    package func send(_ text: String) {
        channel.writeAndFlush(WebSocketClientHandler.frame(opcode: 0x1, Array(text.utf8)), promise: nil)
    }

    /// Sends text messages in one write to the socket, as a client pipelining them does: the
    /// server finds them waiting together, however slowly this side runs.
    package func send(together texts: [String]) {
        var frames = ByteBuffer()
        for text in texts {
            var frame = WebSocketClientHandler.frame(opcode: 0x1, Array(text.utf8))
            frames.writeBuffer(&frame)
        }
        channel.writeAndFlush(frames, promise: nil)
    }

    /// The next text message, or `nil` on timeout or close.
    package func receive(timeout: Duration = .seconds(10)) async -> String? {
        await inbox.next(timeout: timeout)
    }

    /// The next text message, or `nil` once the connection has closed: no time limit, for a loop
    /// that reads everything the server sends.
    func receiveUntilClosed() async -> String? {
        await inbox.next()
    }

    /// Whether the connection has ended (then ``serverCloseFrame`` says whether the server sent a close frame).
    package var hasEnded: Bool { closeFrame.ended.load(ordering: .sequentiallyConsistent) }

    /// The close frame the server sent, once the connection has ended.
    package var serverCloseFrame: WebSocketClientCloseFrame? { closeFrame.frame.withLock { $0 } }

    /// Sends a close frame with `code`, waits (at most 10 s) for the server's answer and the
    /// end of the connection, and closes it.
    package func close(code: WebSocketErrorCode = .normalClosure) async {
        channel.triggerUserOutboundEvent(WebSocketClientHandler.CloseRequest(code: code), promise: nil)
        if await !waitUntilClosed(timeout: .seconds(10)) { await reader.value }
    }

    /// Waits until the server ends the connection, at most `timeout`; then the connection is
    /// closed and `false` returned, so a peer that never closes fails a test instead of hanging it.
    @discardableResult
    package func waitUntilClosed(timeout: Duration = .seconds(30)) async -> Bool {
        let reader = self.reader
        let closed = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await reader.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !closed { try? await channel.close().get() }
        return closed
    }
}
