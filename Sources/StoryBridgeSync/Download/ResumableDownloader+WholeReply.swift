import NIOCore
import NIOHTTP1

extension ResumableDownloader {
    /// Keeps the body of a 200 reply received for another purpose — the delta path's first range
    /// request, answered with the whole blob by a server that ignores or refuses suffix ranges —
    /// as the start of `blob`'s download into `partial`, paying the rate limiter as a download
    /// does. A later ``download(_:into:progress:)`` finds it complete, or resumes it when the
    /// connection was cut, so the package crosses the network once. Returns the bytes received;
    /// throws what a download would (storage, a body longer than the blob).
    ///
    /// The reply must carry a strong ETag (else its bytes could not be resumed); check with
    /// ``canKeep(_:)`` before reading the body.
    func keepWholeReply(
        _ head: HTTPResponseHead, parts: inout BlobHTTP.Parts, blob: Blob, into partial: PartialDownload,
        progress: (Int64) -> Void
    ) async throws -> Int64 {
        let file = try await PartFile(blob, partial, syncEvery: syncEvery)
        try await file.startWhole(
            length: head.headers.first(name: "Content-Length").flatMap(Int64.init), etag: Self.strongETag(head.headers))
        var received: Int64 = 0
        do {
            if try await receiveBody(&parts, into: file, counting: &received, progress: progress) {
                try await file.finishBody()
                return received
            }
        } catch let error as SyncError {
            throw error
        } catch is CancellationError {
            await file.sync()
            throw SyncError.interrupted
        } catch {
            // A cut connection: the bytes on disk are resumed by the download that follows.
        }
        await file.sync()
        return received
    }

    /// Whether a 200 reply can become a download's start: it names the blob with a strong ETag.
    static func canKeep(_ head: HTTPResponseHead) -> Bool {
        head.status.code == 200 && strongETag(head.headers) != nil
    }
}
