import NIOPosix
import StoryBridge
import StoryBridgeScripts
import StoryBridgeServer
import StoryBridgeTesting
import Testing

/// Answers where each kind of command runs: `true` when on an NIO event loop's thread.
private struct WhereModule: BridgeModule {
    let name = "Where"
    var commands: CommandTable {
        BridgeCommand.fromMemory("whereFromMemory") { _, _ in .bool(Self.onEventLoop) }
        BridgeCommand("whereOrdered") { _, _ in .bool(Self.onEventLoop) }
        BridgeCommand("whereConcurrent", .concurrent(.unlimited)) { _, _ in .bool(Self.onEventLoop) }
    }

    static var onEventLoop: Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }
}

@Suite("Where a page connection's tasks run: Swift's global executor, or its socket's event loop")
struct ConnectionEventLoopTests {
    /// Whether each kind of command (memory, queued, concurrent) ran on an event loop, in order.
    private func placesOfCommands(onEventLoop: Bool) async throws -> [Bool] {
        var server = ServerConfiguration(port: 0)
        server.connectionsOnEventLoop = onEventLoop
        let host = try await TestHost.start(presentationFolders: [demoFolder], server: server) {
            try $0.bridge.register(WhereModule())
        }
        return try await host.use { host in
            let viewer = try await host.connectViewer()
            #expect(await viewer.nextEvent(named: "hello") != nil)
            var places: [Bool] = []
            for command in ["whereFromMemory", "whereOrdered", "whereConcurrent"] {
                let answer = try await viewer.request(command)
                #expect(answer.status == .success, "\(command): \(answer)")
                places.append(answer.data == .bool(true))
            }
            await viewer.close()
            return places
        }
    }

    @Test("by default, memory answers, queued requests and concurrent ones run off the event loops")
    func globalExecutorByDefault() async throws {
        #expect(try await placesOfCommands(onEventLoop: false) == [false, false, false])
    }

    @Test("with connectionsOnEventLoop (serve --connections-on-event-loop), all three run on the event loop of the page's socket")
    func commandsOnTheEventLoop() async throws {
        #expect(try await placesOfCommands(onEventLoop: true) == [true, true, true])
    }
}
