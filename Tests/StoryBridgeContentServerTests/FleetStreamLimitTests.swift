import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// The dashboard's live streams are limited (docs/design/FLEET.md §6): at most 32 per session and
/// 256 in all, 503 with `Retry-After` beyond; a stream's place is given back when it ends.
@Suite("Fleet hub: dashboard stream limits")
struct FleetStreamLimitTests {
    @Test("the quota: 32 per session and 256 in all, a released place taken again, a release of nothing ignored")
    func quota() {
        var quota = FleetStreamQuota()
        for _ in 0..<32 { #expect(quota.admit("a") == nil) }
        #expect(quota.admit("a") == .session(limit: 32))
        quota.release("a")
        #expect(quota.admit("a") == nil)
        for session in 0..<7 {
            for _ in 0..<32 { #expect(quota.admit("s\(session)") == nil) }
        }
        #expect(quota.count == 256)
        #expect(quota.admit("new") == .total(limit: 256))
        quota.release("nobody")
        #expect(quota.count == 256)
        quota.release("s3")
        #expect(quota.admit("new") == nil && quota.open["new"] == 1)
        #expect(FleetStreamQuota.Refusal.session(limit: 32).message.contains("32 live dashboard streams"))
    }

    @Test(
        "a 33rd stream of one token is refused with 503 and Retry-After while another admin's token still gets one; a stream that ends gives its place back"
    )
    func perSession() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Date())
        try await lab.withFleetHub(clock: clock) { _, running, client in
            let admin = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            var open: [Int32] = []
            defer { for descriptor in open { close(descriptor) } }
            for _ in 0..<32 {
                let (descriptor, response) = try await Self.stream(port: running.port, token: admin)
                open.append(descriptor)
                #expect(response.status == 200, "\(response.text)")
            }
            let (refusedDescriptor, refused) = try await Self.stream(port: running.port, token: admin)
            close(refusedDescriptor)
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] == "5")
            #expect(refused.text.contains("already has 32 live dashboard streams"), "\(refused.text)")
            // A token is a session of its own.
            let other = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            let (otherDescriptor, otherResponse) = try await Self.stream(port: running.port, token: other)
            close(otherDescriptor)
            #expect(otherResponse.status == 200)
            // The streams' readers go away; each stream notices at its next write (the keep-alive
            // line, 15 s of the hub's clock) and ends, giving its place back.
            for descriptor in open { close(descriptor) }
            open = []
            var admitted = false
            let deadline = ContinuousClock.now + .seconds(20)
            while !admitted, ContinuousClock.now < deadline {
                clock.advance(by: .seconds(16))
                let (descriptor, response) = try await Self.stream(port: running.port, token: admin)
                if response.status == 200 { admitted = true } else { try await Task.sleep(for: .milliseconds(50)) }
                close(descriptor)
            }
            #expect(admitted, "no place was given back")
        }
    }

    /// Opens `GET /fleet/events` with `token` and reads until the headers (and, for a 200, the
    /// snapshot) arrived or the refusal's body did; returns the open socket and what was read.
    static func stream(port: Int, token: String) async throws -> (Int32, RawHTTP.Response) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let descriptor = try RawHTTP.connectedSocket(port: port)
                    let request = "GET /fleet/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n"
                    let bytes = Array(request.utf8)
                    guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
                        close(descriptor)
                        throw RawHTTP.Failure.socket(errno: errno)
                    }
                    var received = Data()
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    let deadline = ContinuousClock.now + .seconds(10)
                    while true {
                        guard case .bytes(let count) = try RawHTTP.receive(descriptor, into: &buffer, before: deadline) else {
                            close(descriptor)
                            throw RawHTTP.Failure.noAnswer(within: 10)
                        }
                        received.append(contentsOf: buffer[0..<count])
                        if let response = RawHTTP.Response(received),
                            response.status == 200 ? response.text.contains("event: snapshot") : response.text.contains("}")
                        {
                            continuation.resume(returning: (descriptor, response))
                            return
                        }
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
