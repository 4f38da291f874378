import Foundation
import HTTPTypes
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import Testing

@Suite("The security envelope of the local bridge")
struct EnvelopeTests {
    @Test("an oversized message closes only that page's connection (1009); other viewers go on")
    func oversized() async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder], server: ServerConfiguration(port: 0, maxMessageSize: 4096))
        let bystander = try await host.connectViewer()
        let flooder = try await host.connectViewer()
        _ = await flooder.nextEvent(named: "hello")
        flooder.sendRaw(#"{"Command":"getUserInfo","GUID":"G1","Data":{"pad":""# + String(repeating: "x", count: 10_000) + #""}}"#)
        #expect(await flooder.connection.waitUntilClosed())
        #expect(flooder.connection.serverCloseFrame?.closeCode == .messageTooLarge)
        #expect(try await bystander.request("getUserInfo").status == .success)
        await bystander.close()
        await host.stop()
    }

    @Test("connections beyond the limit are refused with 503, and accepted again once one closes")
    func connectionLimit() async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder], server: ServerConfiguration(port: 0, maxConnections: 2))
        let first = try await host.connectViewer()
        let second = try await host.connectViewer()
        _ = await first.nextEvent(named: "hello")
        _ = await second.nextEvent(named: "hello")
        // The third page's socket is closed at once with 4503 and the reason; the page may retry.
        let refused = try await WebSocketTextConnection.refused(url: bridgeURL(host))
        #expect(refused?.serverCloseFrame?.closeCode == .unknown(4503))
        #expect(refused?.serverCloseFrame?.reason?.contains("already serves 2 connections") == true)
        #expect(try await first.request("getUserInfo").status == .success)
        await second.close()
        // The place frees up once the server has seen the close.
        var third: ViewerClient?
        let deadline = ContinuousClock.now + .seconds(10)
        while third == nil, ContinuousClock.now < deadline {
            third = try? await host.connectViewer()
            if third == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let connected = try #require(third)
        #expect(try await connected.request("getUserInfo").status == .success)
        await first.close()
        await connected.close()
        await host.stop()
    }

    @Test("requests in flight beyond the per-connection limit are answered 429 at once")
    func inFlightLimit() async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder], server: ServerConfiguration(port: 0, maxInFlightPerConnection: 3))
        let viewer = try await host.connectViewer()
        var guids: [String] = []
        for _ in 0..<5 {
            let guid = viewer.makeGUID()
            guids.append(guid)
            viewer.send(BridgeRequest(command: "openMediaLibrary", data: [:], guid: guid))
        }
        let fourth = try #require(await viewer.answer(to: guids[3]))
        #expect(fourth.errorCode == 429)
        #expect(fourth.errorMessage.contains("limit 3"))
        #expect(await viewer.answer(to: guids[4])?.errorCode == 429)
        #expect(try await viewer.request("getUserInfo").status == .success)
        await viewer.close()
        await host.stop()
    }

    @Test("a flood of 5,000 requests on one connection is answered in full while another viewer is served")
    func flood() async throws {
        try await withHost { host in
            let flooder = try await host.connectViewer()
            let other = try await host.connectViewer()
            var batch: [JSONValue] = []
            for index in 0..<5_000 {
                batch.append(["Command": "getCurrentSlideName", "Data": [:], "GUID": .string("F\(index)")])
            }
            flooder.sendRaw(JSONValue.array(batch).jsonString())
            #expect(try await other.request("getUserInfo").status == .success)
            #expect(await flooder.answer(to: "F4999", timeout: .seconds(60))?.status == .success)
            let answers = flooder.received.withLock { $0.filter { $0["GUID"]?.stringValue?.hasPrefix("F") == true }.count }
            #expect(answers == 5_000)
            await flooder.close()
            await other.close()
        }
    }

    @Test("no token, a wrong token, a foreign page's origin or an unknown slide: the socket is closed at once with 44xx and the reason")
    func refusedUpgrades() async throws {
        try await withHost { host in
            let cases: [(query: String, headers: HTTPFields, code: UInt16, reason: String)] = [
                ("viewer=v&presentation=1&slide=index.html", [:], 4403, "token"),
                ("viewer=v&presentation=1&slide=index.html&token=x", [:], 4403, "token"),
                ("viewer=v&presentation=1&slide=index.html&token=\(host.server.token)", [.origin: "null"], 4403, "origin 'null'"),
                (
                    "viewer=v&presentation=1&slide=index.html&token=\(host.server.token)", [.origin: "http://evil.example"], 4403,
                    "origin 'http://evil.example'"
                ),
                ("viewer=v&presentation=1&slide=nothing.html&token=\(host.server.token)", [:], 4400, "'nothing.html' is not a slide"),
                ("viewer=v&presentation=9&slide=index.html&token=\(host.server.token)", [:], 4400, "presentation 9"),
                ("presentation=1&slide=index.html&token=\(host.server.token)", [:], 4400, "'viewer'"),
            ]
            for refused in cases {
                let connection = try await WebSocketTextConnection.refused(
                    url: bridgeURL(host, query: refused.query), headers: refused.headers)
                #expect(await connection?.receive(timeout: .milliseconds(10)) == nil, "no hello for \(refused.query)")
                #expect(connection?.serverCloseFrame?.closeCode == .unknown(refused.code), "\(refused.query)")
                #expect(connection?.serverCloseFrame?.reason?.contains(refused.reason) == true, "\(refused.query)")
            }
            #expect(await host.runtime.viewers.all.isEmpty)
            // Fetched as a page, a WebSocket path says what it is.
            let plain = try await httpGet(bridgeURL(host).replacingOccurrences(of: "ws://", with: "http://"))
            #expect(plain.status == 426)
            #expect(String(decoding: plain.body, as: UTF8.self).contains("only accepts WebSocket upgrades"))
            let metrics = String(decoding: try await httpGet(host.baseURL + "/__storybridge/metrics").body, as: UTF8.self)
            // At least: a refusal whose close the client library missed is tried again, and counted again.
            for (reason, count) in [("token", 2), ("origin", 2), ("request", 3)] {
                let line = metrics.split(separator: "\n").first {
                    $0.hasPrefix("storybridge_refused_requests_total{reason=\"\(reason)\"} ")
                }
                #expect((line?.split(separator: " ").last).flatMap { Int($0) } ?? 0 >= count, "\(reason)")
            }
        }
    }

    @Test("the inspector, its snapshot and the deep links need the token; the inspector's feed socket is closed 4403 without it")
    func tokenGuardedEndpoints() async throws {
        try await withHost { host in
            for path in ["/__storybridge/inspector", "/__storybridge/inspector/snapshot", "/__storybridge/deeplinks"] {
                let refused = try await httpGet(host.baseURL + path + "?token=wrong")
                #expect(refused.status == 403, "\(path)")
                #expect(String(decoding: refused.body, as: UTF8.self).contains("wrong token"), "\(path)")
                #expect(try await httpGet(host.baseURL + path + "?token=\(host.server.token)").status == 200, "\(path)")
            }
            let ws = host.baseURL.replacingOccurrences(of: "http://", with: "ws://")
            let feed = try await WebSocketTextConnection.refused(url: ws + "/__storybridge/inspector/ws?token=wrong")
            #expect(feed?.serverCloseFrame?.closeCode == .unknown(4403))
        }
    }

    @Test("methods other than GET and HEAD are answered 405; HEAD gets the headers of GET")
    func methods() async throws {
        try await withHost { host in
            let post = try await RawHTTP.exchange(
                port: host.server.port,
                "POST /p/1/index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                timeout: 10, stopWhenComplete: true)
            #expect(post.status == 405)
            let head = try await RawHTTP.exchange(
                port: host.server.port, "HEAD /p/1/css/demo.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 10)
            #expect(head.status == 200)
            #expect(head.headers["content-type"]?.hasPrefix("text/css") == true)
            #expect(head.body.isEmpty)
        }
    }

    private func bridgeURL(_ host: TestHost, query: String? = nil) -> String {
        host.baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/__storybridge/ws?"
            + (query ?? "viewer=\(UUID().uuidString)&presentation=1&slide=index.html&token=\(host.server.token)")
    }

    @Test("serve refuses a non-loopback address without --allow-remote")
    func remoteBinding() async throws {
        let result = try await runCLI(["serve", demoFolder.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("is not a loopback address"))
        #expect(result.errors.contains("--allow-remote"))
    }
}
