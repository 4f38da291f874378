import Foundation
import NIOCore
import NIOHTTP1

/// Byte ranges of one blob, one `Range` request each (multi-range replies are not needed) on one
/// kept-alive connection (``BlobConnection``), every request after the first guarded by
/// `If-Range` with the first reply's strong ETag and checked against its length, so a blob
/// replaced between two requests is detected instead of spliced.
struct RangedBlob {
    let connection: BlobConnection
    /// The run's speed limit (`--limit-rate`), paid after each received chunk like full downloads.
    var rateLimiter: TransferRateLimiter?
    /// Offered the head and body of a 200 answered to the first request (a server that ignores
    /// ranges or refuses the suffix range sends the whole blob): returns true when it read the
    /// body (kept as the full download), false to leave it unread.
    var wholeBlobReply: (@Sendable (HTTPResponseHead, inout BlobHTTP.Parts) async throws -> Bool)?
    /// The blob's length and strong ETag, from the first reply.
    private(set) var length: Int64?
    private(set) var etag: String?
    /// Requests sent and body bytes received.
    private(set) var requests = 0
    private(set) var bytesReceived: Int64 = 0

    init(connection: BlobConnection) {
        self.connection = connection
    }

    /// Where a link's blob is; throws when the link cannot be fetched.
    static func target(_ link: String) throws(DeltaFallback) -> BlobHTTP.Target {
        guard let target = BlobHTTP.Target(link) else { throw .transport("the link is not an http(s) URL") }
        return target
    }

    /// The last `count` bytes (all of them for a shorter blob) and where they start.
    mutating func tail(_ count: Int) async throws -> (bytes: Data, start: Int64) {
        var data = Data()
        let start = try await get(range: "bytes=-\(count)", expectedStart: nil) { data.append(contentsOf: $0.readableBytesView) }
        return (data, start)
    }

    /// Bytes `range` of the blob, handed to `sink` as they arrive.
    mutating func fetch(_ range: Range<Int64>, into sink: (ByteBuffer) async throws -> Void) async throws {
        _ = try await get(range: "bytes=\(range.lowerBound)-\(range.upperBound - 1)", expectedStart: range.lowerBound, sink: sink)
    }

    /// Sends one range request; returns where the reply's bytes start in the blob.
    private mutating func get(range: String, expectedStart: Int64?, sink: (ByteBuffer) async throws -> Void) async throws -> Int64 {
        var headers = HTTPHeaders()
        headers.add(name: "x-ms-version", value: ResumableDownloader.azureStorageVersion)
        headers.add(name: "Range", value: range)
        if let etag { headers.add(name: "If-Range", value: etag) }
        requests += 1
        let isFirst = length == nil
        let knownLength = length
        let knownETag = etag
        let limiter = rateLimiter
        let keepWhole = isFirst ? wholeBlobReply : nil
        let (start, total, tag, received): (Int64, Int64, String, Int64) = try await connection.get(headers: headers) { parts in
            guard case .head(let head) = try await parts.next() else { throw DeltaFallback.transport("no response head") }
            let status = Int(head.status.code)
            let refusesRanges = head.headers.first(name: "Accept-Ranges")?.lowercased() == "none"
            // The whole blob is on its way: better kept as the full download than cut and asked for again.
            if status == 200, let keepWhole, try await keepWhole(head, &parts) {
                throw refusesRanges ? DeltaFallback.rangesRefused : DeltaFallback.suffixRangeRefused(status: 200)
            }
            if refusesRanges { throw DeltaFallback.rangesRefused }
            let replyETag = ResumableDownloader.strongETag(head.headers)
            switch status {
            case 206: break
            case 200:
                if let knownETag, replyETag != knownETag { throw DeltaFallback.blobChanged }
                throw DeltaFallback.rangesIgnored
            case 400, 416, 501:
                throw isFirst ? DeltaFallback.suffixRangeRefused(status: status) : DeltaFallback.unexpectedStatus(status)
            default: throw DeltaFallback.unexpectedStatus(status)
            }
            // Without a strong validator a later request could not tell a replaced blob apart.
            guard let replyETag else { throw DeltaFallback.unguarded }
            guard let bounds = ResumableDownloader.contentRange(head.headers), let total = bounds.total,
                bounds.end >= bounds.start, bounds.end < total
            else { throw DeltaFallback.unexpectedStatus(status) }
            if let knownLength, total != knownLength { throw DeltaFallback.blobChanged }
            if let knownETag, replyETag != knownETag { throw DeltaFallback.blobChanged }
            if let expectedStart, bounds.start != expectedStart { throw DeltaFallback.unexpectedStatus(status) }
            let expected = bounds.end - bounds.start + 1
            var received: Int64 = 0
            while let part = try await parts.next() {
                switch part {
                case .head: continue
                case .body(let chunk):
                    received += Int64(chunk.readableBytes)
                    guard received <= expected else { throw DeltaFallback.transport("the reply is longer than its range") }
                    try await sink(chunk)
                    try await limiter?.pay(chunk.readableBytes)
                case .end:
                    guard received == expected else {
                        throw DeltaFallback.transport("the reply ended after \(received) of \(expected) bytes")
                    }
                    return (bounds.start, total, replyETag, received)
                }
            }
            throw DeltaFallback.transport("the server closed the connection after \(received) of \(expected) bytes")
        }
        bytesReceived += received
        if isFirst {
            length = total
            etag = tag
        }
        return start
    }
}
