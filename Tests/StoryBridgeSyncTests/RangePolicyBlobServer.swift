import Foundation
import StoryBridgeTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blob server on 127.0.0.1 (plain sockets, a thread per connection) that serves one blob with
/// a strong ETag and answers ordinary ranges (`bytes=A-B`, `bytes=A-`, guarded by `If-Range`)
/// with 206, while a suffix range (`bytes=-N`) gets what ``suffixAnswer`` says: some stores and
/// proxies refuse those. Its first reply can go silent mid-body (`silentAfter` body bytes, then
/// nothing for `silence`, then the connection closed). With `keepsAlive` a connection carries
/// requests until the client closes it (HTTP/1.1 keep-alive); without, each reply says
/// `Connection: close` and ends its connection. It counts connections, requests and every body
/// byte the kernel accepted from it.
final class RangePolicyBlobServer: Sendable {
    /// What a suffix range is answered with.
    enum SuffixAnswer: Sendable {
        /// 206 with the last N bytes, as RFC 9110 says.
        case partial
        /// 416 Range Not Satisfiable.
        case unsatisfiable
        /// 200 with the whole blob (the range ignored, `Accept-Ranges: bytes` all the same).
        case wholeBlob
    }

    let port: Int
    let suffixAnswer: SuffixAnswer
    let silentAfter: Int?
    let silence: Duration
    let keepsAlive: Bool
    private let listener: LoopbackListener
    private let state = Mutex(State())

    struct State {
        var blob = Data()
        var etag = "\"none\""
        var requests = 0
        var connections = 0
        var bodyBytesServed = 0
        var rangesAsked: [String] = []
        /// Replies whose silence has run out (their connection closed by the server after it).
        var silencesEnded = 0
    }

    init(suffixAnswer: SuffixAnswer, silentAfter: Int? = nil, silence: Duration = .zero, keepsAlive: Bool = false) throws {
        self.suffixAnswer = suffixAnswer
        self.keepsAlive = keepsAlive
        self.silentAfter = silentAfter
        self.silence = silence
        listener = try LoopbackListener()
        port = listener.port
        listener.acceptOnThread { [self] connection in
            state.withLock { $0.connections += 1 }
            Thread { [self] in
                while serve(connection) && keepsAlive {}
                close(connection)
            }.start()
        }
    }

    /// A link to the blob, with a SAS-like query.
    var link: String { "http://127.0.0.1:\(port)/container/package.zip?sv=2020-04-08&sr=b&sig=x%2By&sp=r" }
    var requests: Int { state.withLock { $0.requests } }
    var connections: Int { state.withLock { $0.connections } }
    var bodyBytesServed: Int { state.withLock { $0.bodyBytesServed } }
    var rangesAsked: [String] { state.withLock { $0.rangesAsked } }
    /// How many silent replies the server has given up on (closed after their silence).
    var silencesEnded: Int { state.withLock { $0.silencesEnded } }

    /// Serves `blob` from now on, under a new ETag; the counters start again.
    func serve(_ blob: Data) {
        state.withLock { state in
            state.blob = blob
            state.etag = "\"\(UUID().uuidString)\""
            state.requests = 0
            state.connections = 0
            state.bodyBytesServed = 0
            state.rangesAsked = []
        }
    }

    /// Stops accepting connections.
    func stop() { listener.stop() }

    /// Answers one request; returns whether its reply was sent whole (the connection can carry another).
    private func serve(_ connection: Int32) -> Bool {
        guard let request = LoopbackListener.readHead(connection) else { return false }
        var headers: [String: String] = [:]
        for line in request.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let (blob, etag, isFirst) = state.withLock { state in
            state.requests += 1
            state.rangesAsked.append(headers["range"] ?? "")
            return (state.blob, state.etag, state.requests == 1)
        }
        let common =
            "ETag: \(etag)\r\nAccept-Ranges: bytes\r\nContent-Type: application/zip\r\n" + (keepsAlive ? "" : "Connection: close\r\n")
        var bytes = 0..<blob.count
        var isPartial = false
        if let range = headers["range"], headers["if-range"].map({ $0 == etag }) ?? true, range.hasPrefix("bytes=") {
            let spec = range.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            if spec.count == 2, spec[0].isEmpty, let count = Int(spec[1]), count > 0 {
                switch suffixAnswer {
                case .partial:
                    bytes = max(0, blob.count - count)..<blob.count
                    isPartial = true
                case .unsatisfiable:
                    let refusal =
                        "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(blob.count)\r\n\(common)Content-Length: 0\r\n\r\n"
                    return writeAll(connection, Data(refusal.utf8), countsAsBody: false)
                case .wholeBlob:
                    break
                }
            } else if spec.count == 2, let from = Int(spec[0]), from < blob.count {
                bytes = from..<(Int(spec[1]).map { min($0 + 1, blob.count) } ?? blob.count)
                isPartial = true
            }
        }
        var head = "HTTP/1.1 200 OK\r\n"
        if isPartial {
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(blob.count)\r\n"
        }
        head += common + "Content-Length: \(bytes.count)\r\n\r\n"
        guard writeAll(connection, Data(head.utf8), countsAsBody: false) else { return false }
        let silentAt = isFirst ? silentAfter.map { bytes.lowerBound + $0 } : nil
        var offset = bytes.lowerBound
        while offset < bytes.upperBound {
            if let silentAt, offset >= silentAt {
                Thread.sleep(forTimeInterval: Double(silence.components.seconds) + Double(silence.components.attoseconds) / 1e18)
                state.withLock { $0.silencesEnded += 1 }
                return false
            }
            let chunk = blob.subdata(in: offset..<min(bytes.upperBound, silentAt ?? .max, offset + 16_384))
            guard writeAll(connection, chunk, countsAsBody: true) else { return false }
            offset += chunk.count
        }
        return true
    }

    private func writeAll(_ connection: Int32, _ data: Data, countsAsBody: Bool) -> Bool {
        LoopbackListener.writeAll(connection, data) { written in
            if countsAsBody { state.withLock { $0.bodyBytesServed += written } }
        }
    }
}
