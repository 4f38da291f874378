import Foundation
import Hummingbird
import Logging
import Synchronization

/// A webhook receiver for tests: a real HTTP server on 127.0.0.1 (port 0) that records each
/// `POST /hook` (headers by lower-case name, body) and answers the statuses it was given in
/// order, then 200.
final class WebhookReceiver: Sendable {
    /// One request received.
    struct Delivery: Sendable {
        var headers: [String: String]
        var body: Data

        /// The body as a JSON object.
        func object() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
        }

        /// `EventName` of the body.
        var eventName: String? { (try? object())?["EventName"] as? String }
    }

    private struct State {
        var received: [Delivery] = []
        var statuses: [Int] = []
    }

    /// The state, shared with the route's closure.
    private final class Box: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    private let box: Box
    private let task: Task<Void, any Error>
    /// The bound port.
    let port: Int

    /// `http://127.0.0.1:<port>/hook`.
    var url: String { "http://127.0.0.1:\(port)/hook" }

    /// A receiver answering `statuses` first, then 200.
    static func start(statuses: [Int] = []) async throws -> WebhookReceiver {
        let box = Box(State(statuses: statuses))
        let router = Router()
        router.post("hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let status = box.state.withLock { state in
                state.received.append(Delivery(headers: headers, body: Data(body.readableBytesView)))
                return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
            }
            return Response(status: HTTPResponse.Status(code: status))
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "test.webhook-receiver")
        logger.logLevel = .critical
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return WebhookReceiver(box: box, task: task, port: port)
    }

    private init(box: Box, task: Task<Void, any Error>, port: Int) {
        self.box = box
        self.task = task
        self.port = port
    }

    /// What was received, in order.
    var received: [Delivery] { box.state.withLock { $0.received } }

    /// Answers `statuses` to the next requests, then 200.
    func answer(_ statuses: [Int]) { box.state.withLock { $0.statuses = statuses } }

    /// Waits (real time, to a 20 s deadline) until `count` requests have come; returns them all.
    func waitFor(_ count: Int) async throws -> [Delivery] {
        try await eventually("\(count) webhook request(s) received (got \(received.count))") { received.count >= count }
        return received
    }

    /// Stops the server.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}
