import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP spoken over a plain TCP socket to 127.0.0.1, for what a URL library will not send or not
/// show: a forged `Host` header, a response cut short (how many body bytes arrived), a server that
/// should close. The blocking socket calls run on a thread of their own, never on a cooperative
/// thread an in-process server needs to answer.
public enum RawHTTP {
    /// A response as it arrived: the status code, the headers (names lower-cased) and the body
    /// bytes received, which may be fewer than `Content-Length` says.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The `Content-Length` the server declared, if any.
        public var declaredLength: Int? { headers["content-length"].flatMap(Int.init) }
        /// Whether the whole declared body has arrived.
        public var isComplete: Bool { declaredLength.map { body.count >= $0 } ?? false }

        /// Reads what arrived so far; `nil` until the header block is complete.
        public init?(_ bytes: Data) {
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
    public enum Failure: Error, Sendable {
        /// Nothing listens on the port.
        case refused(port: Int)
        /// The socket could not be made or the request not sent.
        case socket(errno: Int32)
        /// The server's bytes are not an HTTP/1.x response.
        case notHTTP(received: Int)
    }

    /// Sends `request` (a whole HTTP/1.1 request, header block and all) and reads until the
    /// server closes, `timeout` passes, or, with `stopWhenComplete`, the declared body has arrived.
    public static func exchange(
        port: Int, _ request: String, timeout: TimeInterval = 20, stopWhenComplete: Bool = false
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try blockingExchange(port: port, request, timeout: timeout, stopWhenComplete: stopWhenComplete) })
            }
        }
    }

    /// A GET of `path` with `host` as the `Host` header (none when `nil`) and `Connection: close`.
    public static func get(port: Int, _ path: String, host: String?, headers: [String] = []) async throws -> Response {
        var lines = ["GET \(path) HTTP/1.1"]
        if let host { lines.append("Host: \(host)") }
        lines += headers + ["Connection: close", "", ""]
        return try await exchange(port: port, lines.joined(separator: "\r\n"), timeout: 10, stopWhenComplete: true)
    }

    private static func blockingExchange(port: Int, _ request: String, timeout: TimeInterval, stopWhenComplete: Bool) throws -> Response {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.socket(errno: errno) }
        defer { close(descriptor) }
        // A server that never closes fails the test instead of hanging it.
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure.refused(port: port) }
        let bytes = Array(request.utf8)
        guard send(descriptor, bytes, bytes.count, 0) == bytes.count else { throw Failure.socket(errno: errno) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if stopWhenComplete, let response = Response(received), response.isComplete { return response }
        }
        guard let response = Response(received) else { throw Failure.notHTTP(received: received.count) }
        return response
    }
}
