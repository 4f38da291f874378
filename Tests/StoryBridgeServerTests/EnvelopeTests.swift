import Foundation
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
        await flooder.connection.waitUntilClosed()
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
        await #expect(throws: (any Error).self) { _ = try await host.connectViewer() }
        let refused = try await httpGet(
            host.baseURL + "/__storybridge/ws?viewer=v&presentation=1&slide=index.html&token=\(host.server.token)")
        #expect(refused.status == 503)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("already serves 2 connections"))
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

    @Test("no token, a wrong token or a foreign page's origin cannot open the bridge")
    func refusedUpgrades() async throws {
        try await withHost { host in
            let ws = host.baseURL.replacingOccurrences(of: "http://", with: "ws://")
            for query in ["viewer=v&presentation=1&slide=index.html", "viewer=v&presentation=1&slide=index.html&token=x"] {
                await #expect(throws: (any Error).self) {
                    _ = try await WebSocketTextConnection.connect(url: ws + "/__storybridge/ws?" + query)
                }
                #expect(try await httpGet(host.baseURL + "/__storybridge/ws?" + query).status == 403)
            }
            let nullOrigin = try await httpGet(
                host.baseURL + "/__storybridge/ws?viewer=v&presentation=1&slide=index.html&token=\(host.server.token)",
                headers: ["Origin": "null"])
            #expect(nullOrigin.status == 403)
        }
    }

    @Test("serve refuses a non-loopback address without --allow-remote")
    func remoteBinding() throws {
        let result = try runCLI(["serve", demoFolder.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("is not a loopback address"))
        #expect(result.errors.contains("--allow-remote"))
    }
}
