import Foundation
import StoryBridge
import Synchronization

/// A Chrome DevTools Protocol session over one WebSocket: numbered commands with awaited results.
package final class DevToolsConnection: Sendable {
    /// A command that failed in the browser.
    struct ProtocolError: Error, CustomStringConvertible {
        package let method: String
        package let message: String
        package var description: String { "DevTools \(method) failed: \(message)" }

        /// Whether the command failed only because the page navigated while it ran (its
        /// JavaScript context was destroyed), so asking again reaches the new document.
        var isNavigationRace: Bool {
            ["navigated or closed", "Cannot find context", "context was destroyed"].contains { message.contains($0) }
        }
    }

    private let connection: WebSocketTextConnection
    private let nextId = Atomic<Int>(0)
    private let waiters = Mutex<[Int: CheckedContinuation<JSONValue?, Never>]>([:])
    /// Protocol events (`{"method", "params"}`), in order.
    package let events = Mailbox<JSONValue>()

    private init(connection: WebSocketTextConnection) {
        self.connection = connection
    }

    /// Connects to a DevTools WebSocket URL.
    package static func connect(url: String) async throws -> DevToolsConnection {
        let session = DevToolsConnection(connection: try await WebSocketTextConnection.connect(url: url))
        Task { await session.readLoop() }
        return session
    }

    private func readLoop() async {
        while let text = await connection.receiveUntilClosed() {
            guard let message = try? JSONValue.parse(text) else { continue }
            if let id = message["id"]?.intValue {
                let waiter = waiters.withLock { $0.removeValue(forKey: id) }
                waiter?.resume(returning: message)
            } else if message["method"] != nil {
                await events.put(message)
            }
        }
        let pending = waiters.withLock { all -> [CheckedContinuation<JSONValue?, Never>] in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for waiter in pending { waiter.resume(returning: nil) }
        await events.finish()
    }

    /// Sends `method` with `params` and returns its `result`.
    @discardableResult
    package func send(_ method: String, _ params: JSONValue = .emptyObject, timeout: Duration = .seconds(30)) async throws
        -> JSONValue
    {
        let id = nextId.add(1, ordering: .relaxed).newValue
        let message: JSONValue = ["id": .int(id), "method": .string(method), "params": params]
        let reply: JSONValue? = await withCheckedContinuation { continuation in
            waiters.withLock { $0[id] = continuation }
            connection.send(message.jsonString())
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.waiters.withLock { $0.removeValue(forKey: id) }
                expired?.resume(returning: nil)
            }
        }
        guard let reply else { throw ProtocolError(method: method, message: "no reply (timeout or browser gone)") }
        if let error = reply["error"] {
            throw ProtocolError(method: method, message: error["message"]?.stringValue ?? error.jsonString())
        }
        return reply["result"] ?? .emptyObject
    }

    /// Closes the session.
    package func close() async {
        await connection.close()
    }
}
