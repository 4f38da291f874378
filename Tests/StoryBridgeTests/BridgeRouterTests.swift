import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

private struct EchoModule: BridgeModule {
    let name = "Echo"
    var commands: CommandTable {
        BridgeCommand("echo") { request, _ in ["command": .string(request.command), "data": request.data] }
    }
}

/// A module whose one command waits `delay` of `clock`'s time before answering.
private struct SlowModule: BridgeModule {
    let name = "Slow"
    let clock: ManualHostClock
    let delay: Duration
    let policy: AwaitingPolicy
    var commands: CommandTable {
        BridgeCommand("slow", policy) { _, _ in
            try await clock.sleep(for: delay)
            return "done"
        }
    }
}

private struct FailingModule: BridgeModule {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the disk is on fire" }
    }
    let name = "Failing"
    var commands: CommandTable {
        BridgeCommand("typed") { _, _ in throw BridgeError.notFound("No such thing") }
        BridgeCommand("untyped") { _, _ in throw Broken() }
    }
}

/// A module that declares `echo` twice, once with spaces around it.
private struct TwiceModule: BridgeModule {
    let name = "Twice"
    var commands: CommandTable {
        BridgeCommand("echo") { _, _ in "first" }
        BridgeCommand(" echo ") { _, _ in "second" }
    }
}

@Suite("Router")
struct BridgeRouterTests {
    func context() async throws -> (Bridge, BridgeContext) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        return (host.bridge, host.context(for: viewer))
    }

    /// A bridge that reads time from a manual clock, and a context for it.
    func manualBridge(defaultDeadline: Duration = .seconds(10)) async throws -> (Bridge, BridgeContext, ManualHostClock) {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let clock = ManualHostClock()
        let bridge = Bridge(defaultDeadline: defaultDeadline, clock: clock, logger: quietLogger())
        return (bridge, host.context(for: viewer), clock)
    }

    @Test("a request reaches the command's handler and the answer carries its GUID")
    func routesToModule() async throws {
        let (bridge, context) = try await context()
        try bridge.register(EchoModule())
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

    @Test("a typed handler error becomes a Failure with its own code; any other error a 500 naming the module")
    func moduleErrors() async throws {
        let (bridge, context) = try await context()
        try bridge.register(FailingModule())
        let typed = try #require(await bridge.handle(BridgeRequest(command: "typed", guid: "G1"), context: context))
        #expect(typed.errorCode == 404)
        #expect(typed.errorMessage == "No such thing")
        let untyped = try #require(await bridge.handle(BridgeRequest(command: "untyped", guid: "G2"), context: context))
        #expect(untyped.errorCode == 500)
        #expect(untyped.errorMessage == "Module 'Failing' failed on 'untyped': the disk is on fire")
    }

    @Test("a handler that misses its deadline is answered with a 504 Failure once the clock passes it, and is cancelled")
    func deadline() async throws {
        let (bridge, context, clock) = try await manualBridge()
        try bridge.register(SlowModule(clock: clock, delay: .seconds(3600), policy: .ordered(.after(.milliseconds(100)))))
        async let answer = bridge.handle(BridgeRequest(command: "slow", guid: "G1"), context: context)
        // The handler's hour-long sleep and the deadline timer's tick both wait on the manual clock.
        #expect(await clock.waitForSleepers(2))
        clock.advance(by: .milliseconds(100))
        let response = try #require(await answer)
        #expect(response.errorCode == 504)
        #expect(response.errorMessage == "Module 'Slow' did not answer 'slow' within 0.1 s")
        // The stuck handler was cancelled: it no longer sleeps on the clock.
        #expect(await eventually { clock.sleepers == 0 })
    }

    @Test("the bridge default deadline applies to commands that ask for it")
    func defaultDeadline() async throws {
        let (bridge, context, clock) = try await manualBridge(defaultDeadline: .seconds(10))
        try bridge.register(SlowModule(clock: clock, delay: .seconds(3600), policy: .ordered))
        #expect(bridge.policy(for: "slow") == .ordered(.bridgeDefault))
        async let answer = bridge.handle(BridgeRequest(command: "slow", guid: "G1"), context: context)
        #expect(await clock.waitForSleepers(2))
        clock.advance(by: .seconds(9))
        clock.advance(by: .seconds(1))
        #expect(await answer?.errorCode == 504)
    }

    @Test("a deadline given at registration overrides the one of the command's policy")
    func registrationOverridesDeadline() async throws {
        let (bridge, context, clock) = try await manualBridge(defaultDeadline: .seconds(10))
        try bridge.register(SlowModule(clock: clock, delay: .seconds(30), policy: .ordered), deadline: .unlimited)
        #expect(bridge.policy(for: "slow") == .ordered(.unlimited))
        async let answer = bridge.handle(BridgeRequest(command: "slow", guid: "G2"), context: context)
        // Only the handler sleeps: no deadline was scheduled.
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(30))
        #expect(await answer == .success(guid: "G2", data: "done"))
    }

    @Test("registering a module for a built-in command replaces the built-in one")
    func replaceBuiltIn() async throws {
        struct CustomUser: BridgeModule {
            let name = "CustomUser"
            var commands: CommandTable {
                BridgeCommand.fromMemory("getUserInfo") { _, _ in ["id": "custom", "username": "Custom"] }
            }
        }
        let (bridge, context) = try await context()
        try bridge.register(CustomUser())
        let response = await bridge.handle(BridgeRequest(command: "getUserInfo", guid: "G"), context: context)
        #expect(response?.data["id"] == "custom")
        #expect(bridge.registration(for: "getUserInfo")?.module.name == "CustomUser")
    }

    // A module's own list of commands is read from its table, so a module cannot list a command
    // without a handler (there is no separate list to write). What remains is subscribing a module
    // to commands by name, and a table that declares a name twice: both are refused.
    @Test("subscribing a module to a command its table has no handler for is refused, and nothing is subscribed")
    func noHandlerRefused() async throws {
        let (bridge, context) = try await context()
        #expect(throws: ModuleRegistrationError.noHandler(module: "Echo", command: "shout")) {
            try bridge.subscribe(EchoModule(), toCommands: ["echo", "shout"])
        }
        #expect(bridge.registration(for: "echo") == nil)
        #expect(await bridge.handle(BridgeRequest(command: "echo", guid: "G"), context: context)?.errorCode == 400)
        #expect(
            ModuleRegistrationError.noHandler(module: "Echo", command: "shout").description
                == "Module 'Echo' has no handler for 'shout': add a BridgeCommand for it to its table")
        try bridge.subscribe(EchoModule(), toCommands: ["echo"])
        #expect(bridge.registration(for: "echo")?.module.name == "Echo")
    }

    @Test("a table that declares a command twice (after trimming) is refused, and nothing is subscribed")
    func duplicateRefused() async throws {
        let (bridge, _) = try await context()
        #expect(throws: ModuleRegistrationError.duplicateCommand(module: "Twice", command: "echo")) {
            try bridge.register(TwiceModule())
        }
        #expect(bridge.registration(for: "echo") == nil)
    }

    @Test("every module the host starts with registers cleanly, with the policy each command needs")
    func builtInPolicies() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, _) = await makeHost(presentation: presentation)
        let bridge = Bridge()
        for module in StoryBridgeHost.builtInModules() { try bridge.register(module) }
        try bridge.register(DeepLinkingModule())
        #expect(Set(bridge.commands).isSubset(of: Set(host.bridge.commands)))
        // 64 StoryCLM commands, the Veeva dialect's one and the OCE dialect's two (its calls, and
        // the view of an asset it opened).
        #expect(host.bridge.commands.count == 67)
        #expect(host.bridge.policy(for: VeevaModule.command) == .ordered(.bridgeDefault))
        #expect(host.bridge.policy(for: OceModule.command) == .ordered(.bridgeDefault))
        #expect(host.bridge.policy(for: OceAssets.viewedCommand) == .ordered(.bridgeDefault))
        for (command, _) in ConsoleLogModule.levels { #expect(host.bridge.policy(for: command) == .fromMemory(.readsOnly)) }
        // The legacy spellings take the policy of the command they name.
        #expect(host.bridge.policy(for: "openPresentation") == host.bridge.policy(for: "open"))
        #expect(host.bridge.policy(for: "sessionconfirm") == host.bridge.policy(for: "setSessionComplete"))
        #expect(host.bridge.policy(for: PageAnswers.reportCommand) == .fromMemory(.changesState))
        #expect(host.bridge.policy(for: StoryContextModule.command) == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "getCurrentSlideName") == .fromMemory(.readsOnly))
        // Commands that await the viewer (an actor) are ordered, with the bridge's deadline.
        #expect(bridge.policy(for: "setDeepLinkingOutboundScheme") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "go") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "hideMapBtn") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "getMap") == .fromMemory(.readsOnly))
        #expect(bridge.policy(for: "setCustomEvent") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "storybridge.mediaViewed") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "getMediaFiles") == .ordered(.bridgeDefault))
        #expect(bridge.policy(for: "openMediaFile") == .concurrent(.unlimited))
        #expect(bridge.policy(for: "closePresentation") == .concurrent(.unlimited))
        #expect(host.bridge.policy(for: "httpget") == .concurrent(.after(.seconds(20))))
        #expect(host.bridge.policy(for: "findByQuery") == .ordered(.bridgeDefault))
        // Legacy spellings reach the current command.
        #expect(host.bridge.policy(for: "getsessions") == .ordered(.bridgeDefault))
    }
}

/// Polls `condition` until it holds or 20 seconds pass.
func eventually(_ condition: () -> Bool) async -> Bool {
    let until = ContinuousClock.now + .seconds(20)
    while !condition() {
        if ContinuousClock.now > until { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
