import Crypto
import Foundation
import NIOCore
import NIOWebSocket

/// The client side of RFC 6455 on one NIO channel, in one handler: the opening handshake, then
/// the server's frames read from the same byte buffer (so bytes that arrive in the same read as
/// the `101` answer, a refusal's close frame above all, are parsed like any others: no pipeline
/// is switched while they wait), the client's frames masked on the way out, pings answered and
/// the closing handshake. What the server sends reaches ``WebSocketTextConnection`` as
/// ``WebSocketClientEvent``s, in order, through an `AsyncStream`.
///
/// Written for the scripted viewers of `storybridge test` and the DevTools connection: text and
/// binary messages (fragmented or not), no extensions, `ws://` only. It replaced
/// hummingbird-websocket's `WebSocketClient`, which in about 1 connection in 100 on a loaded
/// machine never delivered a close frame sent right after the handshake, nor the end of the
/// connection after it (measured with 300 refused pages: 2 to 7 connections hung; a raw socket read
/// the frame every time).
final class WebSocketClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A user outbound event: the client closes with this code (a close frame sent once, then
    /// the server's close awaited as the protocol asks).
    struct CloseRequest: Sendable {
        var code: WebSocketErrorCode
    }

    private enum State {
        /// The upgrade request is sent; the answer's head is read into the buffer.
        case handshaking
        /// Frames flow.
        case open
        /// A close frame was sent (by either side first); the connection ends when the server
        /// closes it or after the close timeout.
        case closing
        case ended
    }

    private let request: ByteBuffer
    private let expectedAccept: String
    private let maxMessageSize: Int
    private let handshake: EventLoopPromise<Void>
    private let events: AsyncStream<WebSocketClientEvent>.Continuation
    private var state = State.handshaking
    private var buffer = ByteBuffer()
    /// The opcode and bytes of a fragmented message being received.
    private var fragments: (opcode: UInt8, bytes: [UInt8])?
    private var sentClose = false

    /// `request` is the upgrade request's bytes; `key` its `Sec-WebSocket-Key`.
    init(
        request: ByteBuffer, key: String, maxMessageSize: Int, handshake: EventLoopPromise<Void>,
        events: AsyncStream<WebSocketClientEvent>.Continuation
    ) {
        self.request = request
        self.expectedAccept = Self.accept(for: key)
        self.maxMessageSize = maxMessageSize
        self.handshake = handshake
        self.events = events
    }

    /// The `Sec-WebSocket-Accept` a server answers to `key` (RFC 6455 §4.2.2).
    static func accept(for key: String) -> String {
        let digest = Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
        return Data(digest).base64EncodedString()
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(Self.wrapOutboundOut(request), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        if case .handshaking = state {
            guard readHandshake(context: context) else { return }
        }
        readFrames(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(failure: WebSocketClientFailure.closedDuringHandshake)
        context.fireChannelInactive()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let request = event as? CloseRequest else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        if case .open = state {
            sendClose(context, code: request.code)
            state = .closing
        }
        promise?.succeed()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end(failure: error)
        context.close(promise: nil)
    }

    // MARK: Handshake

    /// Reads the server's answer to the upgrade once its head is whole; returns whether frames
    /// follow (false while the head is incomplete, or when the upgrade was refused).
    private func readHandshake(context: ChannelHandlerContext) -> Bool {
        let view = buffer.readableBytesView
        guard let end = view.firstRange(of: [13, 10, 13, 10]) else {
            if buffer.readableBytes > 16_384 { fail(context, WebSocketClientFailure.badHandshake("an answer head over 16 KB")) }
            return false
        }
        let headLength = end.upperBound - view.startIndex
        let head = buffer.readString(length: headLength) ?? ""
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)
        let status = lines.first.map(String.init) ?? ""
        guard status.split(separator: " ").dropFirst().first == "101" else {
            fail(context, WebSocketClientFailure.upgradeRefused(status: status))
            return false
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else {
            fail(context, WebSocketClientFailure.badHandshake("no 'Upgrade: websocket'"))
            return false
        }
        guard fields["sec-websocket-accept"] == expectedAccept else {
            fail(context, WebSocketClientFailure.badHandshake("a wrong Sec-WebSocket-Accept"))
            return false
        }
        state = .open
        handshake.succeed()
        return true
    }

    // MARK: Frames

    private func readFrames(context: ChannelHandlerContext) {
        while true {
            switch state {
            case .open, .closing: break
            case .handshaking, .ended: return
            }
            guard let frame = nextFrame(context: context) else { return }
            receive(frame, context: context)
        }
    }

    private struct Frame {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]
    }

    /// The next whole frame in the buffer, or nil when it is not whole yet (or was refused).
    private func nextFrame(context: ChannelHandlerContext) -> Frame? {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
        else { return nil }
        if first & 0x70 != 0 || second & 0x80 != 0 {
            // No extension was asked for (RSV bits), and a server never masks its frames.
            protocolError(context, "a server frame with reserved bits or a mask")
            return nil
        }
        var headerLength = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
            length = Int(extended)
            headerLength = 4
        } else if length == 127 {
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
            guard extended <= UInt64(maxMessageSize) else {
                close(context, code: .messageTooLarge)
                return nil
            }
            length = Int(extended)
            headerLength = 10
        }
        guard length + (fragments?.bytes.count ?? 0) <= maxMessageSize else {
            close(context, code: .messageTooLarge)
            return nil
        }
        guard buffer.readableBytes >= headerLength + length else { return nil }
        buffer.moveReaderIndex(forwardBy: headerLength)
        let payload = buffer.readBytes(length: length) ?? []
        buffer.discardReadBytes()
        return Frame(fin: first & 0x80 != 0, opcode: first & 0x0F, payload: payload)
    }

    private func receive(_ frame: Frame, context: ChannelHandlerContext) {
        switch frame.opcode {
        case 0x1, 0x2:
            guard fragments == nil else { return protocolError(context, "a new message inside a fragmented one") }
            if frame.fin {
                deliver(opcode: frame.opcode, frame.payload)
            } else {
                fragments = (frame.opcode, frame.payload)
            }
        case 0x0:
            guard var message = fragments else { return protocolError(context, "a continuation with no message") }
            message.bytes += frame.payload
            if frame.fin {
                fragments = nil
                deliver(opcode: message.opcode, message.bytes)
            } else {
                fragments = message
            }
        case 0x8:
            let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil
            let reason = frame.payload.count > 2 ? String(decoding: frame.payload[2...], as: UTF8.self) : nil
            events.yield(.closeFrame(WebSocketClientCloseFrame(code: code, reason: reason)))
            // Answer the close (echoing its code) and end: the server has said all it will say.
            if !sentClose {
                sentClose = true
                let echoed = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []
                context.writeAndFlush(Self.wrapOutboundOut(Self.frame(opcode: 0x8, echoed)), promise: nil)
            }
            state = .closing
            context.close(promise: nil)
        case 0x9:
            context.writeAndFlush(Self.wrapOutboundOut(Self.frame(opcode: 0xA, frame.payload)), promise: nil)
        case 0xA:
            break
        default:
            protocolError(context, "an unknown opcode \(frame.opcode)")
        }
    }

    private func deliver(opcode: UInt8, _ bytes: [UInt8]) {
        events.yield(.message(String(decoding: bytes, as: UTF8.self)))
    }

    // MARK: Closing

    /// Sends a close frame with `code` (once) and closes the channel: the server's answer, if it
    /// comes first, is still read.
    private func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        sendClose(context, code: code)
        state = .closing
        context.close(promise: nil)
    }

    /// Sends the client's close frame with `code`, once per connection.
    private func sendClose(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !sentClose else { return }
        sentClose = true
        var payload = ByteBuffer()
        payload.write(webSocketErrorCode: code)
        context.writeAndFlush(Self.wrapOutboundOut(Self.frame(opcode: 0x8, Array(payload.readableBytesView))), promise: nil)
    }

    private func protocolError(_ context: ChannelHandlerContext, _ what: String) {
        close(context, code: .protocolError)
    }

    private func fail(_ context: ChannelHandlerContext, _ error: any Error) {
        end(failure: error)
        context.close(promise: nil)
    }

    /// Ends the connection once: a handshake still waiting fails with `failure`, and the events end.
    private func end(failure: any Error) {
        if case .ended = state { return }
        if case .handshaking = state { handshake.fail(failure) }
        state = .ended
        events.yield(.ended)
        events.finish()
    }

    /// One client frame: FIN set, masked with a fresh key (RFC 6455 §5.3).
    static func frame(opcode: UInt8, _ payload: [UInt8]) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.reserveCapacity(payload.count + 14)
        frame.writeInteger(0x80 | opcode)
        if payload.count < 126 {
            frame.writeInteger(0x80 | UInt8(payload.count))
        } else if payload.count <= Int(UInt16.max) {
            frame.writeInteger(UInt8(0x80 | 126))
            frame.writeInteger(UInt16(payload.count))
        } else {
            frame.writeInteger(UInt8(0x80 | 127))
            frame.writeInteger(UInt64(payload.count))
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame.writeBytes(mask)
        var masked = payload
        for index in masked.indices { masked[index] ^= mask[index & 3] }
        frame.writeBytes(masked)
        return frame
    }
}

/// What the server sent, in order, as ``WebSocketClientHandler`` reads it.
enum WebSocketClientEvent: Sendable {
    case message(String)
    case closeFrame(WebSocketClientCloseFrame)
    /// The connection ended (after its close frame, if one came).
    case ended
}

/// The close frame a server sent: its status code (absent in an empty close) and reason.
package struct WebSocketClientCloseFrame: Sendable, Hashable {
    /// The close status as sent (`nil`: the frame carried none).
    package var code: UInt16?
    /// The reason text, when the frame carried one.
    package var reason: String?

    /// The status code as NIO names it (`.unknown(4403)` for the host's own codes).
    package var closeCode: WebSocketErrorCode? { code.map { WebSocketErrorCode(codeNumber: Int($0)) } }
}

/// Why a WebSocket connection could not be made.
enum WebSocketClientFailure: Error, CustomStringConvertible, Sendable {
    /// The URL is not a `ws://host[:port]/…` URL.
    case invalidURL(String)
    /// The server answered the upgrade with something else than `101` (its status line).
    case upgradeRefused(status: String)
    /// The `101` answer was not a WebSocket handshake.
    case badHandshake(String)
    /// The server closed the connection before answering the upgrade.
    case closedDuringHandshake

    package var description: String {
        switch self {
        case .invalidURL(let url): "not a ws:// URL: \(url)"
        case .upgradeRefused(let status): "the server refused the WebSocket upgrade: \(status)"
        case .badHandshake(let what): "the server's WebSocket handshake has \(what)"
        case .closedDuringHandshake: "the server closed the connection before answering the WebSocket upgrade"
        }
    }
}
