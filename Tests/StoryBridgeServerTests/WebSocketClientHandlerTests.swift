import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import StoryBridgeScripts

/// The test WebSocket client's protocol handler on an `EmbeddedChannel`: no socket, every byte
/// the server sends fed by the test, every byte the client writes read back and unmasked.
@Suite("WebSocket client handler (RFC 6455 client side)")
struct WebSocketClientHandlerTests {
    /// A handler on an embedded channel, its handshake promise and the events it reported.
    final class Lab {
        let channel = EmbeddedChannel()
        let handshake: EventLoopPromise<Void>
        let events: AsyncStream<WebSocketClientEvent>
        let key = "dGhlIHNhbXBsZSBub25jZQ=="

        init(maxMessageSize: Int = 1 << 20) throws {
            handshake = channel.eventLoop.makePromise(of: Void.self)
            let (events, continuation) = AsyncStream<WebSocketClientEvent>.makeStream()
            self.events = events
            try channel.pipeline.syncOperations.addHandler(
                WebSocketClientHandler(
                    request: ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"), key: key, maxMessageSize: maxMessageSize,
                    handshake: handshake, events: continuation))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            // The upgrade request, written when the channel became active.
            #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "GET / HTTP/1.1\r\n\r\n")
        }

        /// The server's `101` answer for this lab's key (RFC 6455's own example: the accept of
        /// `dGhlIHNhbXBsZSBub25jZQ==` is `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`).
        func accepted(accept: String = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") -> [UInt8] {
            Array(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
                    .utf8)
        }

        func feed(_ bytes: [UInt8]) throws {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        }

        /// The client's frames written so far: opcode, FIN, whether masked, and the unmasked payload.
        func written() throws -> [(opcode: UInt8, fin: Bool, masked: Bool, payload: [UInt8])] {
            var frames: [(opcode: UInt8, fin: Bool, masked: Bool, payload: [UInt8])] = []
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
                while buffer.readableBytes > 0 { frames.append(try #require(Self.readFrame(&buffer))) }
            }
            return frames
        }

        static func readFrame(_ buffer: inout ByteBuffer) -> (opcode: UInt8, fin: Bool, masked: Bool, payload: [UInt8])? {
            guard let first = buffer.readInteger(as: UInt8.self), let second = buffer.readInteger(as: UInt8.self) else { return nil }
            var length = Int(second & 0x7F)
            if length == 126 { length = Int(buffer.readInteger(as: UInt16.self) ?? 0) }
            if length == 127 { length = Int(buffer.readInteger(as: UInt64.self) ?? 0) }
            let masked = second & 0x80 != 0
            let mask = masked ? (buffer.readBytes(length: 4) ?? []) : [0, 0, 0, 0]
            guard var payload = buffer.readBytes(length: length) else { return nil }
            for index in payload.indices { payload[index] ^= mask[index & 3] }
            return (first & 0x0F, first & 0x80 != 0, masked, payload)
        }

        /// Ends the connection and returns every event the handler reported.
        func finish() async throws -> [WebSocketClientEvent] {
            _ = try? channel.finish()
            var all: [WebSocketClientEvent] = []
            for await event in events { all.append(event) }
            return all
        }
    }

    /// A server frame (never masked).
    static func serverFrame(opcode: UInt8, fin: Bool = true, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else if payload.count <= Int(UInt16.max) {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        return frame + payload
    }

    static func closePayload(_ code: UInt16, _ reason: String) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
    }

    @Test("a close frame in the same read as the 101 is kept, answered with its code, and ends the connection")
    func closeWithTheHandshake() async throws {
        let lab = try Lab()
        try lab.feed(lab.accepted() + Self.serverFrame(opcode: 0x8, Self.closePayload(4400, "Refused: no such slide")))
        try await lab.handshake.futureResult.get()
        let reply = try lab.written()
        #expect(reply.count == 1 && reply[0].opcode == 0x8 && reply[0].masked && reply[0].payload == [0x11, 0x30])
        let events = try await lab.finish()
        guard case .closeFrame(let frame) = events.first else {
            Issue.record("no close frame: \(events)")
            return
        }
        #expect(frame.code == 4400 && frame.reason == "Refused: no such slide" && frame.closeCode == .unknown(4400))
        guard case .ended = events.last else {
            Issue.record("no end: \(events)")
            return
        }
    }

    @Test("a message split into fragments and across reads, byte by byte, arrives whole; a ping is answered with its payload")
    func fragmentsAndPing() async throws {
        let lab = try Lab()
        try lab.feed(lab.accepted())
        let bytes =
            Self.serverFrame(opcode: 0x1, fin: false, Array("hel".utf8)) + Self.serverFrame(opcode: 0x9, [1, 2, 3])
            + Self.serverFrame(opcode: 0x0, Array("lo ✓".utf8)) + Self.serverFrame(opcode: 0x1, Array(repeating: 0x61, count: 70_000))
        for byte in bytes { try lab.feed([byte]) }
        let pong = try lab.written()
        #expect(pong.count == 1 && pong[0].opcode == 0xA && pong[0].masked && pong[0].payload == [1, 2, 3])
        let events = try await lab.finish()
        let messages = events.compactMap { event -> String? in
            if case .message(let text) = event { return text }
            return nil
        }
        #expect(messages == ["hello ✓", String(repeating: "a", count: 70_000)])
    }

    @Test("a message over the limit, a masked server frame and an unknown opcode each close the connection with their code")
    func refusals() async throws {
        for (bytes, code): ([UInt8], UInt16) in [
            (Self.serverFrame(opcode: 0x1, Array(repeating: 0x61, count: 2_000)), 1009),
            ([0x81, 0x81, 1, 2, 3, 4, 0x60], 1002),
            (Self.serverFrame(opcode: 0x3, []), 1002),
        ] {
            let lab = try Lab(maxMessageSize: 1_000)
            try lab.feed(lab.accepted())
            try lab.feed(bytes)
            let close = try lab.written()
            #expect(close.count == 1 && close[0].opcode == 0x8 && close[0].payload == [UInt8(code >> 8), UInt8(code & 0xFF)])
            let events = try await lab.finish()
            #expect(!events.contains { if case .message = $0 { true } else { false } })
        }
    }

    @Test("an upgrade answered with another status or a wrong accept fails the handshake, naming why")
    func handshakeFailures() throws {
        let refused = try Lab()
        try refused.feed(Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(throws: WebSocketClientFailure.self) { try refused.handshake.futureResult.wait() }
        do {
            try refused.handshake.futureResult.wait()
        } catch let failure as WebSocketClientFailure {
            #expect(failure.description == "the server refused the WebSocket upgrade: HTTP/1.1 403 Forbidden")
        }
        let forged = try Lab()
        try forged.feed(forged.accepted(accept: "bm90IHRoZSBhY2NlcHQ="))
        do {
            try forged.handshake.futureResult.wait()
            Issue.record("a wrong Sec-WebSocket-Accept was accepted")
        } catch let failure as WebSocketClientFailure {
            #expect(failure.description == "the server's WebSocket handshake has a wrong Sec-WebSocket-Accept")
        }
    }

    @Test("client frames are masked and carry any length: 0, 125, 126, 65,535 and 65,536 bytes")
    func clientFrames() throws {
        for length in [0, 125, 126, 65_535, 65_536] {
            let payload = (0..<length).map { UInt8($0 % 251) }
            var buffer = WebSocketClientHandler.frame(opcode: 0x1, payload)
            let frame = try #require(Lab.readFrame(&buffer))
            #expect(frame.opcode == 0x1 && frame.fin && frame.masked && frame.payload == payload, "length \(length)")
            #expect(buffer.readableBytes == 0)
        }
    }
}
