import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: test options")
struct TestOptionTests {
    @Test("--test-fail-first N: the first N content and blob requests answer 503 with Retry-After: 1")
    func failFirst() async throws {
        try await ContentLab.serving(decks: [1], faults: TestFaults(failFirst: 2)) { lab, client, token in
            // The token endpoint is not affected: the service token above was granted.
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
        try await ContentLab.serving(decks: [1], faults: TestFaults(failFirst: 1)) { lab, client, token in
            #expect(try await client.get("/v1/contentpackages/1", token: token).status == 503)
            let link = try await client.packageLink(1, token: token)
            #expect(try await client.get(link).status == 200)
        }
    }

    @Test("--test-drop-after-bytes: the connection closes mid-body; a Range request resumes to the exact zip")
    func dropAfterBytes() async throws {
        let faults = TestFaults(dropAfterBytes: 100_000, dropTimes: 1)
        try await ContentLab.serving(decks: [1], mediaBytes: 300_000, faults: faults) { lab, client, token in
            let link = try await client.packageLink(1, token: token)
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
        try await ContentLab.serving(decks: [1], mediaBytes: 100_000, faults: TestFaults(dropAfterBytes: 1000)) { lab, client, token in
            let link = try await client.packageLink(1, token: token)
            for _ in 0..<2 {
                let received = try await RawHTTP.get(link)
                #expect(received.body.count == 1000)
            }
            let ranged = try await RawHTTP.get(link, range: "bytes=5000-")
            #expect(ranged.body == (try cachedPackage(lab, id: 1, revision: 1)).subdata(in: 5000..<6000))
        }
    }
}

extension RawHTTP {
    /// A GET of `url` (on 127.0.0.1) read until the server closes, so a response cut short shows
    /// how many body bytes arrived.
    static func get(_ url: String, range: String? = nil) async throws -> Response {
        let parsed = try #require(URL(string: url))
        let port = try #require(parsed.port)
        let target = parsed.path + (parsed.query.map { "?" + $0 } ?? "")
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let range { request += "Range: \(range)\r\n" }
        return try await exchange(port: port, request + "\r\n")
    }
}
