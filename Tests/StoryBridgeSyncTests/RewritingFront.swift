import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A front for the content API on 127.0.0.1 (plain sockets, a thread of its own) that passes each
/// GET on to the content server and rewrites the JSON of the replies a test picks: the API field
/// values the development server cannot be told to send (a `fileSize` other than the blob's, a
/// `presentations` list of decks a deck opens). Blob links in the replies still point at the
/// content server itself.
final class RewritingFront: Sendable {
    /// Changes the JSON object of a reply to `path`; returns nil to leave it as it is.
    typealias Rewrite = @Sendable (_ path: String, _ object: [String: Any]) -> [String: Any]?

    /// A status to answer (with an empty JSON error) instead of passing a request on; nil passes it on.
    typealias Refusal = @Sendable (_ path: String) -> Int?

    let port: Int
    private let upstream: String
    private let rewrite: Rewrite
    private let refusal: Refusal
    private let listener: LoopbackListener
    private let http = HTTPClient(eventLoopGroupProvider: .singleton)

    init(upstream: String, refusing refusal: @escaping Refusal = { _ in nil }, rewrite: @escaping Rewrite = { _, _ in nil }) throws {
        self.upstream = upstream
        self.rewrite = rewrite
        self.refusal = refusal
        listener = try LoopbackListener()
        port = listener.port
        listener.acceptOnThread { [self] connection in
            Thread { [self] in
                serve(connection)
                close(connection)
            }.start()
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting connections and closes the client it forwards with.
    func stop() async {
        listener.stop()
        try? await http.shutdown()
    }

    private func serve(_ connection: Int32) {
        guard let received = LoopbackListener.readHead(connection) else { return }
        let lines = received.components(separatedBy: "\r\n")
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            guard ["authorization", "accept"].contains(name.lowercased()) else { continue }
            headers.add(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let path = target.split(separator: "?").first.map(String.init) ?? target
        if let status = refusal(path) {
            let body = #"{"error": "refused by the test front"}"#
            send(
                connection,
                "HTTP/1.1 \(status) Refused\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
            return
        }
        let request = try? HTTPClient.Request(url: upstream + target, method: .GET, headers: headers)
        guard let request, let response = try? http.execute(request: request).wait() else { return }
        var body = response.body.map { Data($0.readableBytesView) } ?? Data()
        if response.status.code == 200, let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let changed = rewrite(path, object), let data = try? JSONSerialization.data(withJSONObject: changed)
        {
            body = data
        }
        var head = "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n"
        for (name, value) in response.headers where !["content-length", "connection", "transfer-encoding"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        send(connection, Data(head.utf8) + body)
    }

    private func send(_ connection: Int32, _ text: String) {
        send(connection, Data(text.utf8))
    }

    private func send(_ connection: Int32, _ reply: Data) {
        LoopbackListener.writeAll(connection, reply)
    }
}
