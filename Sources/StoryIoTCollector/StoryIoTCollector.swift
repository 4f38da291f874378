import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import StoryBridge
import StoryBridgeServer
import Synchronization

/// Faults a test can make the collector answer with.
package final class CollectorFaults: Sendable {
    private struct State {
        var rejectEntityIds: Set<String> = []
        var failNext = 0
        var failStatus = 503
        var retryAfter: String?
        var delayMilliseconds = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Answers 400 to records with these entity ids.
    package func reject(entityIds: Set<String>) { state.withLock { $0.rejectEntityIds = entityIds } }

    /// Answers `status` (with `Retry-After` if given) to the next `count` requests.
    package func fail(next count: Int, status: Int = 503, retryAfter: String? = nil) {
        state.withLock {
            $0.failNext = count
            $0.failStatus = status
            $0.retryAfter = retryAfter
        }
    }

    /// Makes every request take at least `milliseconds` (a slow collector).
    package func delay(milliseconds: Int) { state.withLock { $0.delayMilliseconds = milliseconds } }

    var delayMilliseconds: Int { state.withLock { $0.delayMilliseconds } }

    /// A forced answer for this request, if any.
    func forced(entityId: String) -> (Int, String?)? {
        state.withLock { state in
            if state.failNext > 0 {
                state.failNext -= 1
                return (state.failStatus, state.retryAfter)
            }
            if state.rejectEntityIds.contains(entityId) { return (400, nil) }
            return nil
        }
    }
}

/// A local StoryIoT-compatible receiver for development and tests: checks the key, expiry and
/// signature of `POST /{hub}/publish/`, stores each record, and answers as StoryIoT does with
/// `{Path, Topic, Metadata, Hash, Lenght, Id, Ticks}`.
package struct StoryIoTCollector: Sendable {
    package var host: String
    package var port: Int
    package var hub: String?
    package var key: String
    package var secret: String
    package let store: CollectorStore
    package let faults: CollectorFaults
    package var logger: Logger

    package init(
        host: String = "127.0.0.1", port: Int = 8090, hub: String? = nil, key: String, secret: String, store: CollectorStore,
        faults: CollectorFaults = CollectorFaults(), logger: Logger = Logger(label: "storybridge.collector")
    ) {
        self.host = host
        self.port = port
        self.hub = hub
        self.key = key
        self.secret = secret
        self.store = store
        self.faults = faults
        self.logger = logger
    }

    /// Builds the application; `onRunning` gets the bound port.
    package func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            responder: CollectorResponder(collector: self),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Starts in the background and returns once it listens.
    package func start() async throws -> RunningServer {
        try await RunningServer.start(host: host, token: "") { onRunning in makeApplication(onRunning: onRunning) }
    }
}

struct CollectorResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let collector: StoryIoTCollector

    func respond(to request: Request, context: Context) async throws -> Response {
        let segments = request.uri.path.split(separator: "/")
        guard request.method == .post, segments.count == 2, segments[1] == "publish" else {
            return answer(.notFound, ["error": "only POST /{hub}/publish/ is served"])
        }
        let hub = String(segments[0])
        if let expected = collector.hub, expected != hub {
            return answer(.notFound, ["error": .string("unknown hub '\(hub)'")])
        }
        let query = request.uri.queryParameters
        guard let key = query["key"].map(String.init), key == collector.key else {
            return answer(.unauthorized, ["error": "unknown key"])
        }
        guard let expirationText = query["expiration"].map(String.init),
            let expiration = StoryIoTSignature.parseExpiration(expirationText)
        else { return answer(.unauthorized, ["error": "missing or unreadable expiration"]) }
        guard expiration >= Date() else { return answer(.unauthorized, ["error": "the signature has expired"]) }
        guard let signature = query["signature"].map(String.init),
            StoryIoTSignature.verify(signature: signature, key: key, expiration: expirationText, secret: collector.secret)
        else { return answer(.unauthorized, ["error": "bad signature"]) }

        var headers: [String: String] = [:]
        for field in request.headers where field.name.canonicalName.hasPrefix("s-m-") {
            guard field.value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
                return answer(.badRequest, ["error": .string("header \(field.name) is not ASCII")])
            }
            headers[field.name.canonicalName] = field.value
        }
        guard let eventId = headers["s-m-eid"], let entityId = headers["s-m-id"] else {
            return answer(.badRequest, ["error": "s-m-eid and s-m-id headers are required"])
        }
        let delay = collector.faults.delayMilliseconds
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        if let (status, retryAfter) = collector.faults.forced(entityId: entityId) {
            var response = answer(HTTPResponse.Status(code: status), ["error": "forced by the test"])
            if let retryAfter { response.headers[.retryAfter] = retryAfter }
            return response
        }
        let buffer = try await request.body.collect(upTo: 4 << 20)
        let body = String(buffer: buffer)
        guard (try? JSONValue.parse(body)) != nil else { return answer(.badRequest, ["error": "the body is not JSON"]) }
        let isNew = try await collector.store.store(hub: hub, eventId: eventId, entityId: entityId, body: body, headers: headers)
        let hash = SHA256.hash(data: Data(body.utf8)).map { String(format: "%02x", $0) }.joined()
        let ticks = Int64((Date().timeIntervalSince1970 + 62_135_596_800) * 10_000_000)
        return answer(
            .ok,
            [
                "Path": .string(request.uri.path), "Topic": .string(eventId),
                "Metadata": .object(headers.mapValues(JSONValue.string)), "Hash": .string(hash),
                "Lenght": .int(body.utf8.count), "Id": .string(UUID().uuidString.lowercased()), "Ticks": .int(Int(ticks)),
                "Duplicate": .bool(!isNew),
            ])
    }

    private func answer(_ status: HTTPResponse.Status, _ json: JSONValue) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json.jsonString())))
    }
}
