import HTTPTypes
import Logging
import NIOWebSocket
import Synchronization
import WSClient

/// A WebSocket client connection that exchanges text messages: the peer tests use to talk to
/// the bridge endpoint and to Chromium's DevTools.
package final class WebSocketTextConnection: Sendable {
    private enum Outbound: Sendable {
        case text(String)
        case close(WebSocketErrorCode)
    }

    /// Text messages received, in order; finished when the connection closes.
    package let inbox: Mailbox<String>
    private let outbound: AsyncStream<Outbound>.Continuation
    private let task: Task<Void, Never>
    /// The server's close frame, filled by the connection's task when it ends.
    private let closeFrame: CloseFrameSlot

    /// Where the connection's task leaves the server's close frame. Made before the task starts:
    /// a page the host refuses is closed at once, and its close frame can arrive (and the task
    /// end) before ``connect(url:headers:maxMessageSize:)`` has returned the connection; kept in
    /// the connection itself, it was dropped then, and the refusal looked like a silent close.
    private final class CloseFrameSlot: Sendable {
        let frame = Mutex<WebSocketCloseFrame?>(nil)
        /// Set once the connection has ended (after ``frame``).
        let ended = Atomic(false)
    }

    private init(
        outbound: AsyncStream<Outbound>.Continuation, task: Task<Void, Never>, inbox: Mailbox<String>, closeFrame: CloseFrameSlot
    ) {
        self.outbound = outbound
        self.task = task
        self.inbox = inbox
        self.closeFrame = closeFrame
    }

    /// Connects to `url` (`ws://…`), failing when the server refuses the upgrade.
    package static func connect(
        url: String, headers: HTTPFields = [:], maxMessageSize: Int = 1 << 26
    ) async throws -> WebSocketTextConnection {
        let (outgoing, outboundContinuation) = AsyncStream<Outbound>.makeStream()
        let (started, startedContinuation) = AsyncStream<Result<Void, any Error>>.makeStream()
        let closeFrame = CloseFrameSlot()
        let inbox = Mailbox<String>()
        let task = Task {
            var logger = Logger(label: "storybridge.testing.websocket")
            logger.logLevel = .critical
            do {
                let frame = try await WebSocketClient.connect(
                    url: url,
                    configuration: .init(maxFrameSize: maxMessageSize, additionalHeaders: headers),
                    logger: logger
                ) { inbound, writer, _ in
                    startedContinuation.yield(.success(()))
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in outgoing {
                                switch item {
                                case .text(let text): try await writer.write(.text(text))
                                case .close(let code):
                                    try await writer.close(code, reason: nil)
                                    return
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: maxMessageSize) {
                            switch message {
                            case .text(let text): await inbox.put(text)
                            case .binary(let buffer): await inbox.put(String(buffer: buffer))
                            }
                        }
                        group.cancelAll()
                    }
                }
                closeFrame.frame.withLock { $0 = frame }
            } catch {
                startedContinuation.yield(.failure(error))
            }
            startedContinuation.finish()
            closeFrame.ended.store(true, ordering: .sequentiallyConsistent)
            await inbox.finish()
        }
        var iterator = started.makeAsyncIterator()
        guard let outcome = await iterator.next() else { throw WebSocketClientError.webSocketUpgradeFailed }
        try outcome.get()
        return WebSocketTextConnection(outbound: outboundContinuation, task: task, inbox: inbox, closeFrame: closeFrame)
    }

    /// Connects to `url` where the server is expected to refuse the page by closing the socket
    /// at once, and returns the closed connection (its ``serverCloseFrame`` and whatever it
    /// received before the close), or `nil` when it never closed. A connection whose
    /// close the client library did not deliver within `timeout` (or a connection that ended
    /// without the server's close frame) is abandoned and tried again, up to `attempts` times
    /// (the last attempt is returned when none got the frame): under heavy load the WebSocket client can miss a close frame that
    /// arrives while it is still switching protocols, and a test must not fail on that.
    package static func refused(
        url: String, headers: HTTPFields = [:], attempts: Int = 3, timeout: Duration = .seconds(10)
    ) async throws -> WebSocketTextConnection? {
        var last: WebSocketTextConnection?
        for _ in 0..<max(1, attempts) {
            let connection = try await connect(url: url, headers: headers)
            // Closed with the server's close frame: the refusal as sent. Closed without it, or
            // not closed in time: the client missed the frame; try again.
            if await connection.waitUntilClosed(timeout: timeout), connection.serverCloseFrame != nil { return connection }
            last = connection
        }
        return last
    }

    /// Sends a text message.
    package func send(_ text: String) {
        outbound.yield(.text(text))
    }

    /// The next text message, or `nil` on timeout or close.
    package func receive(timeout: Duration = .seconds(10)) async -> String? {
        await inbox.next(timeout: timeout)
    }

    /// The next text message, or `nil` once the connection has closed: no time limit, for a loop
    /// that reads everything the server sends.
    package func receiveUntilClosed() async -> String? {
        await inbox.next()
    }

    /// Whether the connection has ended (then ``serverCloseFrame`` says whether the server sent a close frame).
    package var hasEnded: Bool { closeFrame.ended.load(ordering: .sequentiallyConsistent) }

    /// The close frame the server sent, once the connection has ended.
    package var serverCloseFrame: WebSocketCloseFrame? { closeFrame.frame.withLock { $0 } }

    /// Closes the connection and waits until it has ended.
    package func close(code: WebSocketErrorCode = .normalClosure) async {
        outbound.yield(.close(code))
        outbound.finish()
        await task.value
    }

    /// Waits until the server ends the connection, at most `timeout`; then the connection is
    /// abandoned and `false` returned, so a peer that never closes fails a test instead of hanging it.
    @discardableResult
    package func waitUntilClosed(timeout: Duration = .seconds(30)) async -> Bool {
        let task = self.task
        let closed = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            // Waiting on a task's value does not end when cancelled: end the connection itself.
            if !first { task.cancel() }
            group.cancelAll()
            return first
        }
        return closed
    }
}
