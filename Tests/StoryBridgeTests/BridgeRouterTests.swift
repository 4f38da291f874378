import Foundation
import Testing
@testable import StoryBridge

private struct EchoModule: BridgeModule {
    let name = "Echo"
    let commands = ["echo"]
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        ["command": .string(request.command), "data": request.data]
    }
}

private struct SlowModule: BridgeModule {
    let name = "Slow"
    let commands = ["slow"]
    let delay: Duration
    var deadline: ModuleDeadline
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        try await Task.sleep(for: delay)
        return "done"
    }
}

private struct FailingModule: BridgeModule {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the disk is on fire" }
    }
    let name = "Failing"
    let commands = ["typed", "untyped"]
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        if request.command == "typed" { throw BridgeError.notFound("No such thing") }
        throw Broken()
    }
}

@Suite("Router")
struct BridgeRouterTests {
    func context() async throws -> (Bridge, BridgeContext) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        return (host.bridge, host.context(for: viewer))
    }

    @Test("a request reaches the module subscribed to it and the answer carries its GUID")
    func routesToModule() async throws {
        let (bridge, context) = try await context()
        bridge.register(EchoModule())
        let response = await bridge.handle(BridgeRequest(command: " echo ", data: ["x": 1], guid: "G7"), context: context)
        #expect(response == .success(guid: "G7", data: ["command": "echo", "data": ["x": 1]]))
    }

    @Test("an unknown command gets a 400 Failure that names it")
    func unknownCommand() async throws {
        let (bridge, context) = try await context()
        let response = try #require(await bridge.handle(BridgeRequest(command: "launchRocket", guid: "G1"), context: context))
        #expect(response.status == .failure)
        #expect(response.errorCode == 400)
        #expect(response.errorMessage.contains("'launchRocket'"))
    }

    @Test("a request without GUID is executed but never answered")
    func fireAndForget() async throws {
        let (bridge, context) = try await context()
        #expect(await bridge.handle(BridgeRequest(command: "getUserInfo"), context: context) == nil)
        #expect(await bridge.handle(BridgeRequest(command: "nope"), context: context) == nil)
    }

    @Test("a typed module error becomes a Failure with its own code; any other error a 500 naming the module")
    func moduleErrors() async throws {
        let (bridge, context) = try await context()
        bridge.register(FailingModule())
        let typed = try #require(await bridge.handle(BridgeRequest(command: "typed", guid: "G1"), context: context))
        #expect(typed.errorCode == 404)
        #expect(typed.errorMessage == "No such thing")
        let untyped = try #require(await bridge.handle(BridgeRequest(command: "untyped", guid: "G2"), context: context))
        #expect(untyped.errorCode == 500)
        #expect(untyped.errorMessage == "Module 'Failing' failed on 'untyped': the disk is on fire")
    }

    @Test("a module that misses its deadline is answered with a 504 Failure saying so")
    func deadline() async throws {
        let (bridge, context) = try await context()
        bridge.register(SlowModule(delay: .seconds(30), deadline: .after(.milliseconds(100))))
        let response = try #require(await bridge.handle(BridgeRequest(command: "slow", guid: "G1"), context: context))
        #expect(response.errorCode == 504)
        #expect(response.errorMessage == "Module 'Slow' did not answer 'slow' within 0.1 s")
    }

    @Test("the bridge default deadline applies to modules that ask for it, and registration can override it")
    func defaultDeadline() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation, deadline: .milliseconds(50))
        host.bridge.register(SlowModule(delay: .seconds(5), deadline: .bridgeDefault))
        let late = await host.bridge.handle(BridgeRequest(command: "slow", guid: "G1"), context: host.context(for: viewer))
        #expect(late?.errorCode == 504)
        host.bridge.register(SlowModule(delay: .milliseconds(300), deadline: .bridgeDefault), deadline: .unlimited)
        let waited = await host.bridge.handle(BridgeRequest(command: "slow", guid: "G2"), context: host.context(for: viewer))
        #expect(waited == .success(guid: "G2", data: "done"))
    }

    @Test("registering a module for a built-in command replaces the built-in one")
    func replaceBuiltIn() async throws {
        struct CustomUser: BridgeModule {
            let name = "CustomUser"
            let commands = ["getUserInfo"]
            func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
                ["id": "custom", "username": "Custom"]
            }
        }
        let (bridge, context) = try await context()
        bridge.register(CustomUser())
        let response = await bridge.handle(BridgeRequest(command: "getUserInfo", guid: "G"), context: context)
        #expect(response?.data["id"] == "custom")
        #expect(bridge.registration(for: "getUserInfo")?.module.name == "CustomUser")
    }
}
