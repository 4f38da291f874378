import NIOCore
import NIOHTTP1
import NIOSSL

/// Several GETs of one blob server in turn over one HTTP/1.1 connection kept alive, as the delta
/// path's range requests of a package go: one TCP (and TLS) handshake for all of them instead of
/// one each. Made by ``BlobHTTP/withConnection(_:connectTimeout:readTimeout:trusting:_:)`` and
/// valid only inside its body.
///
/// The connection carries the next request only when the previous reply was read to its end and
/// its head lets it (HTTP/1.1, no `Connection: close`). Otherwise, and when the kept connection
/// turns out closed before a reply to a later request begins (a server that drops idle
/// connections), that request and the following ones go as ``BlobHTTP/get(_:headers:connectTimeout:readTimeout:trusting:_:)``
/// sends them, on a connection each. A GET changes nothing on the server, so sending it again on
/// a new connection is safe.
final class BlobConnection {
    let target: BlobHTTP.Target
    let connectTimeout: TimeAmount
    let readTimeout: TimeAmount
    private let customTLS: NIOSSLContext?
    private let channel: any Channel
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    private var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    /// Whether the kept connection can carry the next request.
    private var isReusable = true
    /// Replies read on the kept connection.
    private var exchanges = 0
    /// TCP connections opened: the kept one and one per request that could not use it.
    private(set) var connectionsOpened = 1

    fileprivate init(
        target: BlobHTTP.Target, connectTimeout: TimeAmount, readTimeout: TimeAmount, customTLS: NIOSSLContext?, channel: any Channel,
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>, outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) {
        self.target = target
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.customTLS = customTLS
        self.channel = channel
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Sends a GET with `headers` and runs `body` over the reply's parts (see ``BlobHTTP/Parts``).
    func get<Value>(headers: HTTPHeaders, _ body: (inout BlobHTTP.Parts) async throws -> Value) async throws -> Value {
        if isReusable, channel.isActive, let first = try await send(headers) {
            exchanges += 1
            var parts = BlobHTTP.Parts(iterator: inbound, first: first)
            defer {
                inbound = parts.iterator
                isReusable = parts.ended && parts.keepsAlive
            }
            return try await body(&parts)
        }
        isReusable = false
        connectionsOpened += 1
        return try await BlobHTTP.get(
            target, headers: headers, connectTimeout: connectTimeout, readTimeout: readTimeout, trusting: customTLS, body)
    }

    /// Sends the request on the kept connection and reads the reply's first part. Nil when the
    /// connection already carried a reply and turns out closed (the request is to go on a new
    /// one). On the first request a failed write is not the answer, as in ``BlobHTTP/get(_:headers:connectTimeout:readTimeout:trusting:_:)``:
    /// what the server sent is read, and nil is the first part when it sent nothing.
    private func send(_ headers: HTTPHeaders) async throws -> HTTPClientResponsePart?? {
        let head = BlobHTTP.requestHead(target, headers: headers, keepAlive: true)
        let reused = exchanges > 0
        do {
            try await outbound.write(contentsOf: [.head(head), .end(nil)])
        } catch {
            if reused { return nil }
            outbound.finish()
        }
        do {
            let first = try await inbound.next()
            if first == nil, reused { return nil }
            return .some(first)
        } catch {
            if reused { return nil }
            throw error
        }
    }
}

extension BlobHTTP {
    /// Opens a connection to `target` and runs `body` with it; closes it when `body` returns or
    /// throws. See ``BlobConnection``.
    static func withConnection<Value>(
        _ target: Target, connectTimeout: TimeAmount, readTimeout: TimeAmount, trusting customTLS: NIOSSLContext? = nil,
        _ body: (BlobConnection) async throws -> Value
    ) async throws -> Value {
        let channel = try await connect(target, connectTimeout: connectTimeout, readTimeout: readTimeout, trusting: customTLS)
        let underlying = channel.channel
        return try await channel.executeThenClose { inbound, outbound in
            let connection = BlobConnection(
                target: target, connectTimeout: connectTimeout, readTimeout: readTimeout, customTLS: customTLS, channel: underlying,
                inbound: inbound, outbound: outbound)
            return try await body(connection)
        }
    }
}
