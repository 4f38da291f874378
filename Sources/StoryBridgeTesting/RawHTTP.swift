import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP spoken over a plain TCP socket to 127.0.0.1, for what a URL library will not send or not
/// show: a forged `Host` header, a response cut short (how many body bytes arrived), a server that
/// should close. The blocking socket calls run on a thread of their own, never on a cooperative
/// thread an in-process server needs to answer.
package enum RawHTTP {
    /// A response as it arrived: the status code, the headers (names lower-cased) and the body
    /// bytes received, which may be fewer than `Content-Length` says.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: Data

        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }
        /// The `Content-Length` the server declared, if any.
        package var declaredLength: Int? { headers["content-length"].flatMap(Int.init) }
        /// Whether the whole declared body has arrived.
        var isComplete: Bool { declaredLength.map { body.count >= $0 } ?? false }

        /// Reads what arrived so far; `nil` until the header block is complete.
        package init?(_ bytes: Data) {
            guard let split = bytes.range(of: Data("\r\n\r\n".utf8)) else { return nil }
            let lines = String(decoding: bytes[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."),
                let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
            else { return nil }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            self.status = status
            self.headers = headers
            body = Data(bytes[split.upperBound...])
        }
    }

    /// Why a raw exchange failed.
    package enum Failure: Error, Sendable {
        /// Nothing listens on the port.
        case refused(port: Int)
        /// The socket could not be made or the request not sent.
        case socket(errno: Int32)
        /// The server's bytes are not an HTTP/1.x response.
        case notHTTP(received: Int)
        /// Nothing arrived within the exchange's time limit (seconds).
        case noAnswer(within: TimeInterval)
    }

    /// What one wait on a socket gave.
    package enum Received: Equatable, Sendable {
        /// This many bytes, now at the start of the buffer.
        case bytes(Int)
        /// The peer closed the connection (or reset it).
        case closed
        /// Nothing before the deadline.
        case timedOut
    }

    /// Waits until `descriptor` has bytes, its peer closes it, or `deadline` passes, and reads
    /// what is there into `buffer`. A signal that interrupts the wait (the SIGCHLD of any child
    /// process the test process starts) is waited through: a socket read with `SO_RCVTIMEO` set
    /// is never restarted after a signal handler, whatever `SA_RESTART` says (signal(7)), and
    /// used to end an exchange early, as if the server had closed.
    package static func receive(
        _ descriptor: Int32, into buffer: inout [UInt8], before deadline: ContinuousClock.Instant
    ) throws -> Received {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                guard errno == EINTR else { throw Failure.socket(errno: errno) }
                continue
            }
            guard ready > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR, EAGAIN: continue
            case ECONNRESET: return .closed
            default: throw Failure.socket(errno: errno)
            }
        }
    }

    /// Sends `request` (a whole HTTP/1.1 request, header block and all) and reads until the
    /// server closes, `timeout` passes, or, with `stopWhenComplete`, the declared body has arrived.
    package static func exchange(
        port: Int, _ request: String, timeout: TimeInterval = 20, stopWhenComplete: Bool = false
    ) async throws -> Response {
        try await exchange(port: port, request, timeout: timeout) { stopWhenComplete && $0.isComplete }
    }

    /// Sends `request` and reads until the server closes, `timeout` passes, or `enough` says what
    /// arrived is all the caller needs.
    package static func exchange(
        port: Int, _ request: String, timeout: TimeInterval, until enough: @escaping @Sendable (Response) -> Bool
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingExchange(port: port, request, timeout: timeout, until: enough) })
            }
        }
    }

    /// The close frame a server sends right after accepting a WebSocket upgrade of `path` (how the
    /// host refuses a page: 101, then a close with a 44xx code and the reason), read off the wire
    /// with no WebSocket client in between; `nil` when the upgrade is not answered 101 or no close
    /// frame follows within `timeout`.
    package static func webSocketRefusal(
        port: Int, _ path: String, headers: [String] = [], timeout: TimeInterval = 10
    ) async throws -> (code: UInt16, reason: String)? {
        let request =
            ([
                "GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket", "Connection: Upgrade",
                "Sec-WebSocket-Key: c3Rvcnlicmlkz2UtdGVzdA==", "Sec-WebSocket-Version: 13",
            ] + headers + ["", ""]).joined(separator: "\r\n")
        let response = try await exchange(port: port, request, timeout: timeout) { closeFrame(in: $0.body) != nil }
        guard response.status == 101 else { return nil }
        return closeFrame(in: response.body)
    }

    /// A server's (unmasked) close frame at the start of `bytes`: its code and reason.
    static func closeFrame(in bytes: Data) -> (code: UInt16, reason: String)? {
        let frame = [UInt8](bytes)
        guard frame.count >= 4, frame[0] == 0x88, frame[1] & 0x80 == 0 else { return nil }
        let length = Int(frame[1] & 0x7F)
        guard length >= 2, length <= 125, frame.count >= 2 + length else { return nil }
        let code = UInt16(frame[2]) << 8 | UInt16(frame[3])
        return (code, String(decoding: frame[4..<(2 + length)], as: UTF8.self))
    }

    /// A GET of `path` with `host` as the `Host` header (none when `nil`) and `Connection: close`.
    package static func get(port: Int, _ path: String, host: String?, headers: [String] = []) async throws -> Response {
        var lines = ["GET \(path) HTTP/1.1"]
        if let host { lines.append("Host: \(host)") }
        lines += headers + ["Connection: close", "", ""]
        return try await exchange(port: port, lines.joined(separator: "\r\n"), timeout: 10, stopWhenComplete: true)
    }

    /// A new blocking TCP socket, not yet bound or connected; the caller closes it.
    static func tcpSocket() throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.socket(errno: errno) }
        return descriptor
    }

    /// The address 127.0.0.1:`port` (0: any free port, when binding).
    static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`; the caller closes it.
    package static func connectedSocket(port: Int) throws -> Int32 {
        let descriptor = try tcpSocket()
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure.refused(port: port)
        }
        return descriptor
    }

    private static func blockingExchange(
        port: Int, _ request: String, timeout: TimeInterval, until enough: (Response) -> Bool
    ) throws -> Response {
        let descriptor = try connectedSocket(port: port)
        defer { close(descriptor) }
        // A server that never closes fails the test instead of hanging it.
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1_000))
        let bytes = Array(request.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw Failure.socket(errno: errno) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        reading: while true {
            switch try receive(descriptor, into: &buffer, before: deadline) {
            case .bytes(let count):
                received.append(contentsOf: buffer[0..<count])
                if let response = Response(received), enough(response) { return response }
            case .closed, .timedOut:
                break reading
            }
        }
        if received.isEmpty, ContinuousClock.now >= deadline { throw Failure.noAnswer(within: timeout) }
        guard let response = Response(received) else { throw Failure.notHTTP(received: received.count) }
        return response
    }
}
