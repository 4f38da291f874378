import Foundation
import StoryBridgeContentServer
import Testing

@Suite("Content server: test options")
struct TestOptionTests {
    @Test("--test-fail-first N: the first N content and blob requests answer 503 with Retry-After: 1")
    func failFirst() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        try await lab.withServer(lab.configuration(faults: TestFaults(failFirst: 2))) { client in
            // The token endpoint is not affected.
            let token = try await client.serviceToken()
            for _ in 0..<2 {
                let reply = try await client.get("/v1/clients", token: token)
                #expect(reply.status == 503)
                #expect(reply.header("retry-after") == "1")
                #expect(try reply.object()["error"] is String)
            }
            #expect(try await client.get("/v1/clients", token: token).status == 200)
        }
    }

    @Test("--test-fail-first counts blob requests too")
    func failFirstBlobs() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        try await lab.withServer(lab.configuration(faults: TestFaults(failFirst: 1))) { client in
            let token = try await client.serviceToken()
            #expect(try await client.get("/v1/contentpackages/1", token: token).status == 503)
            let link = try await client.packageLink(1, token: token)
            #expect(try await client.get(link).status == 200)
        }
    }

    @Test("--test-drop-after-bytes: the connection closes mid-body; a Range request resumes to the exact zip")
    func dropAfterBytes() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, mediaBytes: 300_000)
        let faults = TestFaults(dropAfterBytes: 100_000, dropTimes: 1)
        try await lab.withServer(lab.configuration(faults: faults)) { client in
            let link = try await client.packageLink(1, token: try await client.serviceToken())
            let zip = try cachedPackage(lab, id: 1, revision: 1)
            #expect(zip.count > 200_000)
            let received = try await RawHTTP.get(link)
            #expect(received.declaredLength == zip.count)
            #expect(received.body.count == 100_000)
            #expect(received.body == zip.prefix(100_000))
            // Only the first response was cut (dropTimes 1): the rest arrives whole.
            let rest = try await client.get(link, headers: ["Range": "bytes=100000-"])
            #expect(rest.status == 206)
            #expect(received.body + rest.body == zip)
        }
    }

    @Test("--test-drop-after-bytes without a count cuts every blob response")
    func dropEvery() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, mediaBytes: 100_000)
        try await lab.withServer(lab.configuration(faults: TestFaults(dropAfterBytes: 1000))) { client in
            let link = try await client.packageLink(1, token: try await client.serviceToken())
            for _ in 0..<2 {
                let received = try await RawHTTP.get(link)
                #expect(received.body.count == 1000)
            }
            let ranged = try await RawHTTP.get(link, range: "bytes=5000-")
            #expect(ranged.body == (try cachedPackage(lab, id: 1, revision: 1)).subdata(in: 5000..<6000))
        }
    }
}

/// A plain HTTP/1.1 GET over a socket that reads until the server closes, so a response cut short
/// shows how many body bytes arrived.
enum RawHTTP {
    struct Received {
        var status: Int
        var declaredLength: Int?
        var body: Data
    }

    static func get(_ url: String, range: String? = nil) async throws -> Received {
        let parsed = try #require(URL(string: url))
        let port = try #require(parsed.port)
        let target = parsed.path + (parsed.query.map { "?" + $0 } ?? "")
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let range { request += "Range: \(range)\r\n" }
        request += "\r\n"
        let bytes = Data(request.utf8)
        // A thread of its own: blocking reads must not hold a cooperative-pool thread.
        let raw = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try exchange(port: port, request: bytes) })
            }
        }
        guard let split = raw.range(of: Data("\r\n\r\n".utf8)) else { throw CocoaError(.coderReadCorrupt) }
        let head = String(decoding: raw[..<split.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let length = lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        return Received(status: status, declaredLength: length, body: Data(raw[split.upperBound...]))
    }

    private static func exchange(port: Int, request: Data) throws -> Data {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        // A server that never closes fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }
}
