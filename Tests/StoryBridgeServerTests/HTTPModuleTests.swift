import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StoryBridge
import StoryBridgeTesting
import Testing

/// A real HTTP server on loopback for the HTTP module to talk to.
func startRemoteService() async throws -> (port: Int, stop: @Sendable () async -> Void) {
    let router = Router()
    router.get("/echo") { request, _ -> Response in
        var headers: [String: JSONValue] = [:]
        for field in request.headers { headers[field.name.canonicalName] = .string(field.value) }
        var response = Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: JSONValue.object(["headers": .object(headers)]).jsonString())))
        response.headers[HTTPField.Name("X-Remote")!] = "yes"
        return response
    }
    router.post("/created") { request, _ -> Response in
        let body = try await request.body.collect(upTo: 1 << 20)
        return Response(status: .created, body: .init(byteBuffer: body))
    }
    router.put("/created") { request, _ -> Response in
        let body = try await request.body.collect(upTo: 1 << 20)
        return Response(status: .ok, body: .init(byteBuffer: body))
    }
    router.delete("/item") { _, _ in Response(status: .noContent) }
    router.get("/missing") { _, _ in Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "no such thing"))) }
    router.get("/slow") { _, _ -> Response in
        try await Task.sleep(for: .seconds(3))
        return Response(status: .ok)
    }
    router.get("/big") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 65, count: 300_000))) }
    router.get("/redirect/{count}") { _, context -> Response in
        let count = try context.parameters.require("count", as: Int.self)
        return count <= 0
            ? Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "arrived")))
            : Response.redirect(to: "/redirect/\(count - 1)", type: .found)
    }
    router.get("/elsewhere") { _, _ in Response.redirect(to: "http://127.0.0.2:1/secret", type: .found) }
    var logger = Logger(label: "remote")
    logger.logLevel = .critical
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
    let task = Task { try await app.run() }
    var iterator = ports.makeAsyncIterator()
    let port = await iterator.next() ?? 0
    return (
        port,
        {
            task.cancel(); _ = await task.result
        }
    )
}

@Suite("HTTP module against a real HTTP server")
struct HTTPModuleTests {
    func withRemote(
        settings: (Int) -> HTTPModuleSettings = { _ in
            HTTPModuleSettings(allowedHosts: ["127.0.0.1"], timeoutSeconds: 20, maxBodyBytes: 100_000, maxRedirects: 2)
        },
        _ body: (ViewerClient, Int, TestHost) async throws -> Void
    ) async throws {
        let remote = try await startRemoteService()
        let host = try await TestHost.start(presentationFolders: [demoFolder], http: settings(remote.port))
        let viewer = try await host.connectViewer()
        do { try await body(viewer, remote.port, host) } catch {
            await viewer.close()
            await host.stop()
            await remote.stop()
            throw error
        }
        await viewer.close()
        await host.stop()
        await remote.stop()
    }

    func decode(_ data: JSONValue) -> String {
        String(decoding: Data(base64Encoded: data["body"]?.stringValue ?? "") ?? Data(), as: UTF8.self)
    }

    @Test("GET passes headers both ways and answers the body in Base64 with the remote status")
    func get() async throws {
        try await withRemote { viewer, port, _ in
            let answer = try await viewer.request(
                "httpget", data: ["url": .string("http://127.0.0.1:\(port)/echo"), "headers": ["X-Token": "abc"]])
            #expect(answer.status == .success)
            #expect(answer.errorCode == 200)
            #expect(answer.errorMessage == "OK")
            let echoed = try JSONValue.parse(decode(answer.data))
            #expect(echoed["headers"]?["x-token"] == "abc")
            #expect(answer.data["headers"]?["X-Remote"] == "yes")
        }
    }

    @Test("POST and PUT send the Base64 body; 201 and 204 pass through as ErrorCode with Status Success")
    func postPutDelete() async throws {
        try await withRemote { viewer, port, _ in
            let body = Data("héllo, bridge".utf8).base64EncodedString()
            let created = try await viewer.request(
                "httppost", data: ["url": .string("http://127.0.0.1:\(port)/created"), "body": .string(body), "headers": [:]])
            #expect(created.status == .success)
            #expect(created.errorCode == 201)
            #expect(created.errorMessage == "Created")
            #expect(decode(created.data) == "héllo, bridge")
            let put = try await viewer.request(
                "httpput", data: ["url": .string("http://127.0.0.1:\(port)/created"), "body": .string(body)])
            #expect(decode(put.data) == "héllo, bridge")
            let deleted = try await viewer.request("httpdelete", data: ["url": .string("http://127.0.0.1:\(port)/item")])
            #expect(deleted.errorCode == 204)
        }
    }

    @Test("a remote 404 is a Failure with ErrorCode 404 and the body still delivered")
    func remoteError() async throws {
        try await withRemote { viewer, port, _ in
            let answer = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/missing")])
            #expect(answer.status == .failure)
            #expect(answer.errorCode == 404)
            #expect(answer.errorMessage == "Not Found")
            #expect(decode(answer.data) == "no such thing")
        }
    }

    @Test("a remote server slower than the timeout is a 504 Failure")
    func timeout() async throws {
        try await withRemote(settings: { _ in HTTPModuleSettings(allowedHosts: ["127.0.0.1"], timeoutSeconds: 1) }) { viewer, port, _ in
            let slow = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/slow")])
            #expect(slow.errorCode == 504)
            #expect(slow.errorMessage.contains("did not answer within 1.0 s"))
        }
    }

    @Test("oversized bodies and redirect loops are specific Failures")
    func limits() async throws {
        try await withRemote { viewer, port, _ in
            let big = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/big")])
            #expect(big.errorCode == 502)
            #expect(big.errorMessage.contains("larger than 100000 bytes"))
            let followed = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/redirect/2")])
            #expect(decode(followed.data) == "arrived")
            let loop = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/redirect/5")])
            #expect(loop.errorCode == 508)
            #expect(loop.errorMessage.contains("more than 2 redirects"))
        }
    }

    @Test("refused: other hosts, file: URLs, redirects to hosts not allowed, and the host's own reserved paths")
    func refusals() async throws {
        try await withRemote { viewer, port, host in
            let other = try await viewer.request("httpget", data: ["url": "http://127.0.0.9:9/"])
            #expect(other.errorCode == 400)
            #expect(other.errorMessage == "Refused: host '127.0.0.9' is not in http.allowedHosts")
            let file = try await viewer.request("httpget", data: ["url": "file:///etc/passwd"])
            #expect(file.errorMessage == "Refused: scheme 'file:' is never allowed")
            let redirected = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/elsewhere")])
            #expect(redirected.errorMessage == "Refused: host '127.0.0.2' is not in http.allowedHosts")
            let own = try await viewer.request("httpget", data: ["url": .string("\(host.baseURL)/__storybridge/info")])
            #expect(own.errorMessage == "Refused: the host's own reserved paths are never reachable")
            let badBody = try await viewer.request("httppost", data: ["url": .string("http://127.0.0.1:\(port)/created"), "body": "%%%"])
            #expect(badBody.errorMessage == "Invalid Data: 'body' is not Base64")
            let badHeaders = try await viewer.request(
                "httpget", data: ["url": .string("http://127.0.0.1:\(port)/echo"), "headers": ["a": ["b"]]])
            #expect(badHeaders.errorMessage == "Invalid Data: 'headers.a' must be a string")
        }
    }

    @Test("with the default settings nothing is reachable")
    func defaultRefusesAll() async throws {
        try await withRemote(settings: { _ in HTTPModuleSettings() }) { viewer, port, _ in
            let answer = try await viewer.request("httpget", data: ["url": .string("http://127.0.0.1:\(port)/echo")])
            #expect(answer.errorMessage == "Refused: host '127.0.0.1' is not in http.allowedHosts")
        }
    }
}
