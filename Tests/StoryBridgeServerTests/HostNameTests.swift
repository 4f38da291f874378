import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeServer

@Suite("The Host allow-list against DNS rebinding")
struct HostNameTests {
    @Test("a foreign Host gets no slide, no token, no scripts, no inspector data, no deep links, no metrics")
    func foreignHostGetsNothing() async throws {
        try await withHost { host in
            let port = host.server.port
            let token = host.server.token
            let paths = [
                "/", "/p/1/index.html", "/p/1/css/demo.css", "/__storybridge/client.js",
                "/__storybridge/inspector?token=\(token)", "/__storybridge/inspector/snapshot?token=\(token)",
                "/__storybridge/deeplinks?token=\(token)", "/__storybridge/metrics", "/__storybridge/info",
            ]
            for path in paths {
                let answer = try await RawHTTP.get(port: port, path, host: "rebound.example:\(port)")
                #expect(answer.status == 421, "\(path)")
                #expect(!answer.text.contains(token), "\(path)")
                #expect(answer.text.contains("'rebound.example' is not a name of this host"), "\(path)")
                #expect(answer.text.contains("--allowed-host rebound.example"), "\(path)")
            }
            let metrics = String(decoding: try await httpGet(host.baseURL + "/__storybridge/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"storybridge_refused_requests_total{reason="host"} \#(paths.count)"#))
        }
    }

    @Test("a WebSocket upgrade with a foreign Host is not upgraded: no socket, even with the right token")
    func foreignHostGetsNoSocket() async throws {
        try await withHost { host in
            let port = host.server.port
            for path in [
                "/__storybridge/ws?viewer=v&presentation=1&slide=index.html&token=\(host.server.token)",
                "/__storybridge/inspector/ws?token=\(host.server.token)",
            ] {
                let answer = try await RawHTTP.get(
                    port: port, path, host: "rebound.example:\(port)",
                    headers: [
                        "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                        "Sec-WebSocket-Key: c3RvcnlicmlkZ2UtdGVzdA==", "Origin: http://rebound.example:\(port)",
                    ])
                #expect(answer.status != 101)
                #expect(answer.status == 400)
                #expect(answer.headers["upgrade"] == nil)
            }
            #expect(await host.runtime.viewers.all.isEmpty)
        }
    }

    @Test("127.0.0.1, localhost and [::1] with any port, and the bound address, are this host")
    func ownNamesServe() async throws {
        try await withHost { host in
            let port = host.server.port
            for name in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST.:\(port)", "[::1]:\(port)", "127.0.0.1", "localhost:1"] {
                let answer = try await RawHTTP.get(port: port, "/p/1/index.html", host: name)
                #expect(answer.status == 200, "\(name)")
                #expect(answer.text.contains("data-token=\"\(host.server.token)\""), "\(name)")
            }
        }
    }

    @Test("a request without a Host header is refused with 400")
    func missingHost() async throws {
        try await withHost { host in
            let answer = try await RawHTTP.exchange(
                port: host.server.port, "GET /p/1/index.html HTTP/1.0\r\n\r\n", timeout: 10, stopWhenComplete: true)
            #expect(answer.status == 400)
            #expect(!answer.text.contains(host.server.token))
        }
    }

    @Test("--allowed-host names, and *.domain for its sub-domains, are served; others still refused")
    func allowedHosts() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.allowedHosts = ["kiosk.lan", "*.review.lan", "Review-Box:8080"]
        let host = try await TestHost.start(presentationFolders: [demoFolder], server: configuration)
        let port = host.server.port
        for name in ["kiosk.lan:\(port)", "a.review.lan", "b.c.review.lan:\(port)", "review-box:\(port)"] {
            #expect(try await RawHTTP.get(port: port, "/p/1/index.html", host: name).status == 200, "\(name)")
        }
        for name in ["review.lan", "kiosk.lan.evil.example", "evil-kiosk.lan"] {
            #expect(try await RawHTTP.get(port: port, "/p/1/index.html", host: name).status == 421, "\(name)")
        }
        await host.stop()
    }

    @Test("Host values are reduced to a name: port, brackets, case and a trailing dot removed; malformed ones refused")
    func hostNameParsing() {
        #expect(AllowedHostNames.hostName(ofAuthority: "LocalHost.:8080") == "localhost")
        #expect(AllowedHostNames.hostName(ofAuthority: "[::1]:8080") == "::1")
        #expect(AllowedHostNames.hostName(ofAuthority: "[::1]") == "::1")
        #expect(AllowedHostNames.hostName(ofAuthority: "127.0.0.1") == "127.0.0.1")
        #expect(AllowedHostNames.hostName(ofAuthority: "[::1") == nil)
        #expect(AllowedHostNames.hostName(ofAuthority: "[::1]x") == nil)
        #expect(AllowedHostNames.hostName(ofAuthority: "a:b:c") == nil)
        #expect(AllowedHostNames.hostName(ofAuthority: "host:80x") == nil)
        #expect(AllowedHostNames.hostName(ofAuthority: ":80") == nil)
        let names = AllowedHostNames(boundAddress: "127.0.0.1")
        #expect(names.check(authority: "127.0.0.1:9") == nil)
        #expect(names.check(authority: nil) == .missingHost)
        #expect(names.check(authority: "127.0.0.1.rebound.example") == .foreignHost("127.0.0.1.rebound.example"))
        let wildcard = AllowedHostNames(boundAddress: "0.0.0.0")
        #expect(wildcard.check(authority: "127.0.0.1") == nil)
        #expect(wildcard.check(authority: "0.0.0.0") != nil)
    }

    @Test("serve takes --allowed-host and server.allowedHosts from the config file")
    func serveOption() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("sb-hosts-\(UUID().uuidString).json")
        try #"{"server": {"allowedHosts": ["from-config.lan"]}}"#.write(to: config, atomically: true, encoding: .utf8)
        let serve = try await ServeProcess.start([
            demoFolder.path, "--port", "0", "--allowed-host", "from-flag.lan", "--config", config.path, "--no-watch",
        ])
        for name in ["from-flag.lan", "from-config.lan", "localhost"] {
            #expect(try await RawHTTP.get(port: serve.port, "/p/1/index.html", host: name).status == 200, "\(name)")
        }
        #expect(try await RawHTTP.get(port: serve.port, "/p/1/index.html", host: "elsewhere.lan").status == 421)
        #expect(await serve.interrupt() == 0)
        #expect(serve.errors.contains("request refused"))
        try? FileManager.default.removeItem(at: config)
    }
}
