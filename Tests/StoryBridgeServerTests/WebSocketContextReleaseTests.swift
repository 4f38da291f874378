import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeServer

/// A connection's request context goes with the connection: hummingbird-websocket keeps the
/// context in a box the context itself holds, and the routes break that cycle
/// (``WebSocketHandlerSlot``). Before, every page load left its context behind for good.
@Suite("WebSocket request contexts are freed")
struct WebSocketContextReleaseTests {
    @Test("300 page loads, each connected, answered and gone, leave no request context behind")
    func contextsFreed() async throws {
        let pageLoads = 300
        try await withHost { host in
            let before = WebSocketHandlerSlot.alive.load(ordering: .relaxed)
            for index in 0..<pageLoads {
                let viewer = try await host.connectViewer(slide: "index.html", viewerId: "context-\(index)")
                _ = try await viewer.request("getUserInfo")
                await viewer.close()
            }
            // Other suites run meanwhile and hold contexts of their own (up to about a hundred at
            // once); each of these page loads left one behind when the cycle was not broken.
            var leftBehind = Int.max
            for _ in 0..<100 {
                leftBehind = WebSocketHandlerSlot.alive.load(ordering: .relaxed) - before
                if leftBehind < pageLoads / 2 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(leftBehind < pageLoads / 2, "\(leftBehind) more request contexts alive after \(pageLoads) page loads")
        }
    }
}
