import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// A DNS rebinding attack as a real browser lives it: Chromium is told that `rebound.test` resolves
/// to 127.0.0.1, so a page it loads under that name is same-origin with the host as far as the
/// browser knows. The host must give such a page nothing, while the same browser keeps working
/// through `localhost` and `127.0.0.1`.
@Suite("DNS rebinding in headless Chromium", .serialized)
struct DNSRebindingTests {
    /// A browser of its own: the resolver rule must not leak into the shared one.
    func withReboundBrowser(_ body: (TestHost, HeadlessChromium) async throws -> Void) async throws {
        let browser = try await HeadlessChromium.launch(extraArguments: [
            "--host-resolver-rules=MAP rebound.test 127.0.0.1", "--proxy-server=direct://",
        ])
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        try await withCleanup {
            try await body(host, browser)
        } cleanup: {
            await host.stop()
            await browser.close()
        }
    }

    @Test("a page loaded as rebound.test gets the refusal, no client script, no token and no socket")
    func reboundPageGetsNothing() async throws {
        try await withReboundBrowser { host, browser in
            let port = host.server.port
            let token = host.server.token
            let page = try await browser.newPage()
            defer { Task { await page.close() } }

            try await page.navigate(to: "http://rebound.test:\(port)/p/1/index.html")
            let body = try await page.evaluate("document.body ? document.body.innerText : ''").stringValue ?? ""
            #expect(body.contains("'rebound.test' is not a name of this host"))
            #expect(!body.contains(token))
            #expect(try await page.evaluate("typeof window.__storybridge") == "undefined")
            #expect(try await page.evaluate("document.documentElement.outerHTML.indexOf(\(JSONValue.string(token).jsonString()))") == -1)

            // Script running in that origin (what the attacker's page would be) reads nothing either.
            for path in [
                "/__storybridge/client.js", "/__storybridge/metrics", "/__storybridge/info",
                "/__storybridge/inspector/snapshot?token=\(token)", "/p/1/index.html",
            ] {
                let status = try await page.evaluate(
                    "fetch(\(JSONValue.string(path).jsonString())).then(function(r){return r.status;})")
                #expect(status == 421, "\(path)")
            }
            let socket = try await page.evaluate(
                """
                new Promise(function (resolve) {
                  var ws = new WebSocket('ws://rebound.test:\(port)/__storybridge/ws?viewer=attacker&presentation=1&slide=index.html&token=\(token)');
                  ws.onopen = function () { resolve('open'); ws.close(); };
                  ws.onerror = function () { resolve('refused'); };
                })
                """)
            #expect(socket == "refused")
            #expect(await host.runtime.viewers.all.isEmpty)

            let metrics = try await host.metrics.render(analytics: host.runtime.analytics)
            #expect(metrics.contains(#"storybridge_refused_requests_total{reason="host"}"#))
        }
    }

    @Test("the same browser keeps working through localhost and 127.0.0.1")
    func ownNamesKeepWorking() async throws {
        try await withReboundBrowser { host, browser in
            let port = host.server.port
            for name in ["localhost", "127.0.0.1"] {
                let page = try await browser.newPage()
                try await page.navigate(to: "http://\(name):\(port)/p/1/index.html")
                try await page.waitForSlide("index.html")
                let app = try await page.press("getAppInfo")
                #expect(app["status"] == "Success", "\(name)")
                await page.close()
            }
            #expect(await host.runtime.viewers.all.count == 2)
        }
    }
}
