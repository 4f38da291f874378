import Foundation
import StoryBridgeTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blob server on 127.0.0.1 (plain sockets, a thread of its own) that serves one blob with a
/// strong ETag, honours `Range` + `If-Range`, and closes the connection after a set number of
/// body bytes, a different number for each request in turn; it counts every body byte the kernel
/// accepted from it, so a test can compare what was served with what the client kept.
final class DroppingBlobServer: Sendable {
    let port: Int
    let blob: Data
    let etag = "\"blob-etag-1\""
    private let listener: LoopbackListener
    private let state: Mutex<State>

    struct State {
        /// Body bytes to send before closing, per request, in order; after the list, no drop.
        var drops: [Int]
        var requests = 0
        var bodyBytesServed = 0
        var rangesAsked: [String] = []
        var azureVersions: [String] = []
        var requestLines: [String] = []
    }

    init(blob: Data, drops: [Int]) throws {
        self.blob = blob
        state = Mutex(State(drops: drops))
        listener = try LoopbackListener(backlog: 8, reuseAddress: true)
        port = listener.port
        listener.acceptOnThread { [self] connection in
            serve(connection)
            close(connection)
        }
    }

    var link: String { "http://127.0.0.1:\(port)/container/blob.zip?sv=2016-05-31&sr=b&sig=a%2Bb%3D&se=2030-01-01&sp=r" }
    var bodyBytesServed: Int { state.withLock { $0.bodyBytesServed } }
    var requests: Int { state.withLock { $0.requests } }
    var rangesAsked: [String] { state.withLock { $0.rangesAsked } }
    var azureVersions: [String] { state.withLock { $0.azureVersions } }
    var requestLines: [String] { state.withLock { $0.requestLines } }

    /// Stops accepting connections.
    func stop() { listener.stop() }

    private func serve(_ connection: Int32) {
        guard let request = LoopbackListener.readHead(connection) else { return }
        let lines = request.split(separator: "\r\n").map(String.init)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let (limit, _) = state.withLock { state -> (Int?, Void) in
            let index = state.requests
            state.requests += 1
            state.rangesAsked.append(headers["range"] ?? "")
            state.azureVersions.append(headers["x-ms-version"] ?? "")
            state.requestLines.append(lines.first ?? "")
            return (index < state.drops.count ? state.drops[index] : nil, ())
        }
        var start = 0
        var head = "HTTP/1.1 200 OK\r\n"
        if let range = headers["range"], headers["if-range"] == etag, range.hasPrefix("bytes="), range.hasSuffix("-"),
            let from = Int(range.dropFirst("bytes=".count).dropLast()), from < blob.count
        {
            start = from
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(from)-\(blob.count - 1)/\(blob.count)\r\n"
        }
        head += "Content-Length: \(blob.count - start)\r\nETag: \(etag)\r\nContent-Type: application/zip\r\nConnection: close\r\n\r\n"
        guard writeAll(connection, Data(head.utf8), countsAsBody: false) else { return }
        let end = limit.map { min(blob.count, start + $0) } ?? blob.count
        var offset = start
        while offset < end {
            let chunk = blob.subdata(in: offset..<min(end, offset + 16_384))
            guard writeAll(connection, chunk, countsAsBody: true) else { return }
            offset += chunk.count
        }
    }

    private func writeAll(_ connection: Int32, _ data: Data, countsAsBody: Bool) -> Bool {
        LoopbackListener.writeAll(connection, data) { written in
            if countsAsBody { state.withLock { $0.bodyBytesServed += written } }
        }
    }
}
