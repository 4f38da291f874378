import NIOPosix
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

@testable import StoryBridgeServer

/// Answers where each kind of command runs: `true` when on an NIO event loop's thread.
private struct WhereModule: BridgeModule {
    let name = "Where"
    var commands: CommandTable {
        BridgeCommand.fromMemory("whereFromMemory") { _, _ in .bool(Self.onEventLoop) }
        BridgeCommand("whereOrdered") { _, _ in .bool(Self.onEventLoop) }
        BridgeCommand("whereConcurrent", .concurrent(.unlimited)) { _, _ in .bool(Self.onEventLoop) }
        // Takes its time (0.2 ms), so that frames sent after it are waiting when the host reads them.
        BridgeCommand.fromMemory("whereSlowly") { _, _ in
            let until = ContinuousClock.now + .microseconds(200)
            while ContinuousClock.now < until {}
            return .bool(Self.onEventLoop)
        }
    }

    static var onEventLoop: Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }
}

@Suite("Where a page connection's tasks run: its socket's event loop, or Swift's global executor")
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

    @Test("by default, a page waiting for each answer gets its memory answers on the event loop; queued and concurrent requests run off it")
    func readingOnTheEventLoopByDefault() async throws {
        #expect(try await placesOfCommands(onEventLoop: false) == [true, false, false])
    }

    @Test("with connectionsOnEventLoop (serve --connections-on-event-loop), all three run on the event loop of the page's socket")
    func commandsOnTheEventLoop() async throws {
        #expect(try await placesOfCommands(onEventLoop: true) == [true, true, true])
    }

    @Test("by default, frames sent back to back are read off the event loop, and a page waiting for its answers again is read on it")
    func backToBackReadOffTheEventLoop() async throws {
        // The rule's bound is for a release build (20 µs); a debug build on a slow machine takes
        // 50 µs to read a frame already there. The test checks what the placement does with a
        // bound no machine misses (a frame found waiting is read within 2 ms, one the host waits
        // for comes after a 20 ms pause); ReadingPlacementTests check the rule itself.
        var server = ServerConfiguration(port: 0)
        server.waitingFrame = .milliseconds(2)
        let host = try await TestHost.start(presentationFolders: [demoFolder], server: server) {
            try $0.bridge.register(WhereModule())
        }
        try await host.use { host in
            let viewer = try await host.connectViewer()
            #expect(await viewer.nextEvent(named: "hello") != nil)
            // 200 requests in one write, each answered in 0.2 ms: the host finds the next one
            // waiting each time. One write, not 200: sent one by one from a loaded machine, they
            // could come slower than the host answers them, each read as it came.
            let guids = (0..<200).map { _ in viewer.makeGUID() }
            viewer.send(together: guids.map { BridgeRequest(command: "whereSlowly", guid: $0) })
            var places: [Bool] = []
            for guid in guids {
                let answer = try #require(await viewer.answer(to: guid))
                places.append(answer.data == .bool(true))
            }
            #expect(places.first == true, "the first frame is read where the connection starts, on its event loop: \(places)")
            #expect(places.contains(false), "frames found waiting are read off the event loop: \(places)")
            // One request at a time, each after a pause: the host waits for every frame, and after
            // ReadingPlacement.awaitedFramesToMove of them reads on the event loop again.
            var paced: [Bool] = []
            for _ in 0..<(ReadingPlacement.awaitedFramesToMove + 2) {
                try await Task.sleep(for: .milliseconds(20))
                paced.append(try await viewer.request("whereFromMemory").data == .bool(true))
            }
            #expect(paced.suffix(2) == [true, true], "\(paced)")
            await viewer.close()
        }
    }
}
