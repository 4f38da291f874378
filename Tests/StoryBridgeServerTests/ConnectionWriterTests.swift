import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// Each page connection's writer (`PageConnection.runWriter()`) is a child task of the
/// connection's handler: it runs while the connection does and none outlives it.
@Suite("The connection's writer task")
struct ConnectionWriterTests {
    @Test("each page connection runs one writer while it is open, and none is left once it has ended")
    func oneWriterPerConnection() async throws {
        try await withHost { host in
            #expect(host.metrics.runningWriters == 0)
            var viewers: [ViewerClient] = []
            for index in 0..<3 {
                let viewer = try await host.connectViewer(viewerId: "writer-\(index)")
                #expect(await viewer.nextEvent(named: "hello") != nil)
                #expect(try await viewer.request("getAppInfo").status == .success)
                viewers.append(viewer)
            }
            #expect(host.metrics.runningWriters == 3)
            await viewers.removeFirst().close()
            try await waitUntil(timeout: .seconds(10)) { host.metrics.runningWriters == 2 }
            for viewer in viewers { await viewer.close() }
            try await waitUntil(timeout: .seconds(10)) { host.metrics.runningWriters == 0 }
        }
    }

    @Test("stopping the server while pages are connected returns only once every connection's writer has ended")
    func noWriterAfterStop() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        var viewers: [ViewerClient] = []
        for index in 0..<4 {
            let viewer = try await host.connectViewer(viewerId: "stopped-\(index)")
            #expect(await viewer.nextEvent(named: "hello") != nil)
            viewers.append(viewer)
        }
        #expect(host.metrics.runningWriters == 4)
        await host.stop()
        // The writers are children of the connections' handlers, which the server awaits.
        #expect(host.metrics.runningWriters == 0)
        for viewer in viewers { await viewer.close() }
    }
}
