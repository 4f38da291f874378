import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One GET of a blob on a connection of its own (``get(_:headers:connectTimeout:readTimeout:trusting:_:)``),
/// or several in turn on one kept-alive connection (``BlobConnection``), over HTTP/1.1 (TLS for `https`), whose response
/// parts reach the caller in order: **every** body part the connection received, also when the
/// server closes it mid-body.
///
/// AsyncHTTPClient does not do that: when a connection closes, NIO reads everything the kernel
/// still holds, and the client's response stream fails before handing those buffered parts on,
/// so a drop lost up to the socket's receive buffer (600 KB in the measurements). Here
/// the parts go through `NIOAsyncChannel`, whose inbound stream yields what it buffered before it
/// ends or throws.
enum BlobHTTP {
    /// The response parts of one request, read with ``next()``.
    struct Parts {
        var iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
        /// A part already read from the connection, handed out first.
        private var first: HTTPClientResponsePart?
        /// Whether `.end` was handed out: the reply is complete, and the connection's next part
        /// belongs to the next reply.
        private(set) var ended = false
        /// Whether the reply's head lets the connection carry another request (HTTP/1.1 without
        /// `Connection: close`).
        private(set) var keepsAlive = false

        init(iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator, first: HTTPClientResponsePart? = nil) {
            self.iterator = iterator
            self.first = first
        }

        /// The next part; nil after `.end`, or when the connection closed before it (cut).
        mutating func next() async throws -> HTTPClientResponsePart? {
            guard !ended else { return nil }
            let part: HTTPClientResponsePart?
            if let first {
                part = first
                self.first = nil
            } else {
                part = try await iterator.next()
            }
            switch part {
            case .head(let head): keepsAlive = head.isKeepAlive
            case .end: ended = true
            case .body, nil: break
            }
            return part
        }
    }

    /// The address of a GET: where to connect and what to ask.
    struct Target: Sendable, Hashable {
        var tls: Bool
        var host: String
        var port: Int
        /// Path and query, percent-encoded exactly as the link has them (a SAS signature is).
        var requestTarget: String

        init?(_ link: String) {
            guard let components = URLComponents(string: link), let scheme = components.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
            else { return nil }
            tls = scheme == "https"
            self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            port = components.port ?? (tls ? 443 : 80)
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }

        /// The `Host` header: the name, with the port when it is not the scheme's.
        var hostHeader: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == (tls ? 443 : 80) ? name : "\(name):\(port)"
        }
    }

    /// Connects to `target`, sends a GET with `headers`, and runs `body` over the response parts;
    /// the connection is closed when `body` returns or throws. When the server sends nothing for
    /// `readTimeout` while the client waits for bytes, the parts throw ``BlobReadStalled`` after
    /// those already received (``StalledReadTimeout``: a reader pausing on purpose, as the rate
    /// limiter does, is not a stalled server). An `https` target is verified against the system's
    /// trust roots, or `trusting`'s.
    static func get<Value>(
        _ target: Target, headers: HTTPHeaders, connectTimeout: TimeAmount, readTimeout: TimeAmount,
        trusting customTLS: NIOSSLContext? = nil, _ body: (inout Parts) async throws -> Value
    ) async throws -> Value {
        let channel = try await connect(target, connectTimeout: connectTimeout, readTimeout: readTimeout, trusting: customTLS)
        let head = requestHead(target, headers: headers, keepAlive: false)
        return try await channel.executeThenClose { inbound, outbound in
            // The request goes out in one write: written as two, a server that answers a short
            // body and closes between them failed the second write, and the body already
            // received was dropped with it. A write that fails all the same is not the answer:
            // what the server sent is read below, and its end says how the exchange ended.
            do {
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            } catch {
                outbound.finish()
            }
            var parts = Parts(iterator: inbound.makeAsyncIterator())
            return try await body(&parts)
        }
    }

    /// A connection to `target` (TLS for `https`, verified against the system's trust roots or
    /// `customTLS`'s) speaking HTTP/1.1, with the read timeout of ``StalledReadTimeout``. A host
    /// that is an IP address (a content server on the LAN) is connected to as one, without a
    /// name resolution (`getaddrinfo`, whose first call in a process loads the system's resolver
    /// modules).
    static func connect(
        _ target: Target, connectTimeout: TimeAmount, readTimeout: TimeAmount, trusting customTLS: NIOSSLContext?
    ) async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        let tlsContext = target.tls ? try customTLS ?? sharedTLSContext.get() : nil
        let address = try? SocketAddress(ipAddress: target.host, port: target.port)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(connectTimeout)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>> = {
            channel in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                if let tlsContext {
                    try pipeline.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: address == nil ? target.host : nil))
                }
                try pipeline.addHTTPClientHandlers()
                try pipeline.addHandler(StalledReadTimeout(timeout: readTimeout))
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
            }
        }
        if let address { return try await bootstrap.connect(to: address, channelInitializer: initializer) }
        return try await bootstrap.connect(host: target.host, port: target.port, channelInitializer: initializer)
    }

    /// The head of a GET of `target` with `headers`; `Connection: close` unless `keepAlive`.
    static func requestHead(_ target: Target, headers: HTTPHeaders, keepAlive: Bool) -> HTTPRequestHead {
        var requestHeaders = headers
        requestHeaders.replaceOrAdd(name: "Host", value: target.hostHeader)
        if keepAlive {
            requestHeaders.remove(name: "Connection")
        } else {
            requestHeaders.replaceOrAdd(name: "Connection", value: "close")
        }
        if !requestHeaders.contains(name: "User-Agent") { requestHeaders.add(name: "User-Agent", value: "storybridge-sync") }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: target.requestTarget, headers: requestHeaders)
    }

    /// One TLS context for every blob connection (the system's trust roots).
    static let sharedTLSContext: Result<NIOSSLContext, any Error> = Result {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }
}
