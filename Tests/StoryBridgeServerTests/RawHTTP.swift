import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a server answered on a raw connection: the status line's code, the headers (names
/// lower-cased) and the body as text.
struct RawAnswer {
    var status: Int
    var headers: [String: String]
    var body: String
}

/// Sends `request` (a whole HTTP/1.1 request, header block and all) to 127.0.0.1:`port` over a
/// plain TCP socket and reads until the server closes the connection or `timeout` passes: for
/// requests a URL library would not send as written, such as a forged `Host` header. The blocking
/// socket calls run on a thread of their own, so that the in-process server keeps the
/// cooperative threads it needs to answer.
func rawHTTP(port: Int, _ request: String, timeout: TimeInterval = 10) async throws -> RawAnswer {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try blockingRawHTTP(port: port, request, timeout: timeout) })
        }
    }
}

private func blockingRawHTTP(port: Int, _ request: String, timeout: TimeInterval) throws -> RawAnswer {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(.EIO) }
    defer { close(socket) }
    var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    let bytes = Array(request.utf8)
    guard send(socket, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = recv(socket, &buffer, buffer.count, 0)
        if count <= 0 { break }
        received.append(contentsOf: buffer[0..<count])
        if let answer = parse(received), answer.complete { return answer.answer }
    }
    guard let answer = parse(received) else { throw POSIXError(.EBADMSG) }
    return answer.answer
}

/// A GET of `path` with `host` as the `Host` header (no header at all when `nil`).
func rawGet(port: Int, _ path: String, host: String?, extraHeaders: [String] = []) async throws -> RawAnswer {
    var lines = ["GET \(path) HTTP/1.1"]
    if let host { lines.append("Host: \(host)") }
    lines += extraHeaders + ["Connection: close", "", ""]
    return try await rawHTTP(port: port, lines.joined(separator: "\r\n"))
}

private func parse(_ bytes: [UInt8]) -> (answer: RawAnswer, complete: Bool)? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let headerEnd = text.range(of: "\r\n\r\n") else { return nil }
    let lines = text[..<headerEnd.lowerBound].components(separatedBy: "\r\n")
    guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."),
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let body = String(text[headerEnd.upperBound...])
    let complete = headers["content-length"].flatMap(Int.init).map { body.utf8.count >= $0 } ?? false
    return (RawAnswer(status: status, headers: headers, body: body), complete)
}
