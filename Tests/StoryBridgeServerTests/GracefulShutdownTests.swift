import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to 127.0.0.1 that never sends a byte, like a browser's preconnected socket.
private final class SilentConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = try RawHTTP.connectedSocket(port: port)
    }

    /// Whether the server closes the connection within `seconds` (read on a thread of its own).
    func closedByServer(within seconds: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [descriptor] in
                var buffer = [UInt8](repeating: 0, count: 1)
                let received = try? RawHTTP.receive(descriptor, into: &buffer, before: .now + .seconds(seconds))
                continuation.resume(returning: received == .closed)
            }
        }
    }

    func closeHere() { close(descriptor) }
}

@Suite("Graceful shutdown")
struct GracefulShutdownTests {
    @Test("a connection that never sent a request is closed at shutdown instead of holding the server up")
    func silentConnectionDoesNotHoldShutdown() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        let silent = try SilentConnection(port: host.server.port)
        // A used keep-alive connection too: Hummingbird closes that one itself.
        let page = try await httpGet(host.slideURL(slide: "index.html"))
        #expect(page.status == 200)
        try await Task.sleep(for: .milliseconds(500))
        let stopping = Task { await host.stop() }
        let closed = await silent.closedByServer(within: 20)
        silent.closeHere()
        await stopping.value
        #expect(closed, "the server left a connection that never sent a byte open during its graceful shutdown")
    }

    @Test("Ctrl-C stops serve while a connection that never sent a request is open")
    func serveStopsWithSilentConnection() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sb-shutdown-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let serve = try await ServeProcess.start([demoFolder.path, "--port", "0", "--data-dir", data.path, "--log-level", "error"])
        let silent = try SilentConnection(port: serve.port)
        // Time for the server to accept the connection and set up its pipeline (not a measurement).
        try await Task.sleep(for: .milliseconds(500))
        let exit = Task { await serve.interrupt() }
        let closed = await silent.closedByServer(within: 20)
        silent.closeHere()
        let status = await exit.value
        #expect(closed, "serve left a connection that never sent a byte open after Ctrl-C")
        #expect(status == 0, "\(serve.errors)")
        // A connection closed by the shutdown is not an error worth a line in the terminal.
        #expect(!serve.errors.contains(" error "), "\(serve.errors)")
    }
}
