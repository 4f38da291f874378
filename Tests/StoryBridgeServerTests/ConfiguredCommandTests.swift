import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Custom commands declared in the config file")
struct ConfiguredCommandTests {
    func commands(webhookPort: Int) throws -> [ConfiguredCommand] {
        let json = """
            [
              {"name": "getClientCard", "reply": {"id": 7, "name": "ACME"}},
              {"name": "greet", "template": {"text": "Hello, {{data.name}}!", "echo": "{{data}}", "first": "{{data.tags.0}}", "slide": "{{slide}}"}},
              {"name": "notYet", "reply": {}, "status": 404, "message": "Not in this build"},
              {"name": "crmLookup", "webhook": {"url": "http://127.0.0.1:\(webhookPort)/hook", "timeoutSeconds": 20, "headers": {"X-Secret": "s"}}},
              {"name": "crmDown", "webhook": {"url": "http://127.0.0.1:\(webhookPort)/fail", "timeoutSeconds": 20}},
              {"name": "crmSlow", "webhook": {"url": "http://127.0.0.1:\(webhookPort)/slow", "timeoutSeconds": 0.5}}
            ]
            """
        return try JSONDecoder().decode([ConfiguredCommand].self, from: Data(json.utf8))
    }

    func startWebhook() async throws -> (Int, @Sendable () async -> Void) {
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let body = try JSONValue.parse(String(buffer: try await request.body.collect(upTo: 1 << 20)))
            let answer: JSONValue = [
                "received": body["Data"] ?? .null, "command": body["Command"] ?? .null, "viewer": body["viewer"] ?? .null,
                "secret": .string(request.headers[HTTPField.Name("X-Secret")!] ?? ""),
            ]
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: answer.jsonString())))
        }
        router.post("/fail") { _, _ in Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "maintenance"))) }
        router.post("/slow") { _, _ -> Response in
            try await Task.sleep(for: .seconds(3))
            return Response(status: .ok)
        }
        var logger = Logger(label: "hook")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        return (
            await iterator.next() ?? 0,
            {
                task.cancel(); _ = await task.result
            }
        )
    }

    @Test("fixed replies, templates and webhooks answer the content's SendCommand calls")
    func answers() async throws {
        let (port, stopHook) = try await startWebhook()
        let host = try await TestHost.start(presentationFolders: [demoFolder], commands: try commands(webhookPort: port))
        let viewer = try await host.connectViewer(slide: "products.html")
        #expect(try await viewer.request("getClientCard").data == ["id": 7, "name": "ACME"])
        let greeting = try await viewer.request("greet", data: ["name": "Vera", "tags": ["vip", "new"]])
        #expect(greeting.data["text"] == "Hello, Vera!")
        #expect(greeting.data["echo"] == ["name": "Vera", "tags": ["vip", "new"]])
        #expect(greeting.data["first"] == "vip")
        #expect(greeting.data["slide"] == "products.html")
        let notYet = try await viewer.request("notYet")
        #expect(notYet.status == .failure)
        #expect(notYet.errorCode == 404)
        #expect(notYet.errorMessage == "Not in this build")
        let crm = try await viewer.request("crmLookup", data: ["client": 42])
        #expect(crm.data == ["received": ["client": 42], "command": "crmLookup", "viewer": .string(viewer.viewerId), "secret": "s"])
        let down = try await viewer.request("crmDown")
        #expect(down.errorCode == 503)
        #expect(down.errorMessage.contains("maintenance"))
        let slow = try await viewer.request("crmSlow")
        #expect(slow.errorCode == 504)
        #expect(slow.errorMessage.contains("did not answer within 0.5 s"))
        await viewer.close()
        await host.stop()
        await stopHook()
    }

    @Test("a command with none or several answer sources is refused naming it")
    func invalidDefinition() async throws {
        let folder = try makePresentationFolder([
            "config.json": #"{"commands": [{"name": "broken", "reply": {}, "template": {}}]}"#
        ])
        let result = try await runCLI([
            "serve", demoFolder.path, "--port", "0", "--config", folder.appendingPathComponent("config.json").path,
        ])
        #expect(result.status != 0)
        #expect(result.errors.contains("command 'broken' needs exactly one of 'reply', 'template' or 'webhook'"))
    }

    @Test("a command whose name is empty or only spaces is refused when the config is read")
    func emptyName() throws {
        let json = #"[{"name": "  ", "reply": {}}]"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ConfiguredCommand].self, from: Data(json.utf8)) }
    }

    @Test("configured commands are answered in the page's order, webhooks on a task of their own with their own deadline")
    func policies() throws {
        let module = ConfiguredCommandsModule([
            ConfiguredCommand(name: "fixed", source: .reply(["a": 1])),
            ConfiguredCommand(name: "hook", source: .webhook(.init(url: "http://127.0.0.1:9/hook", timeoutSeconds: 3))),
        ])
        let bridge = Bridge()
        try bridge.register(module)
        #expect(bridge.commands == ["fixed", "hook"])
        #expect(bridge.policy(for: "fixed") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "hook") == .concurrent(.after(.seconds(5))))
    }
}
