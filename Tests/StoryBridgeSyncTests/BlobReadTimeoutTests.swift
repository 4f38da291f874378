import Foundation
import Logging
import NIOCore
import StoryBridge
import StoryBridgeSync
import Testing

/// The read timeout of a blob connection counts the server's silence while the client waits for
/// bytes, not the pauses of a reader that stops reading on purpose (`--limit-rate`).
@Suite("Blob downloads: the read timeout and the rate limiter", .serialized)
struct BlobReadTimeoutTests {
    static func download(
        from server: RangePolicyBlobServer, size: Int, readTimeout: TimeAmount, rate: TransferRate?
    ) async throws -> (outcome: ResumableDownloader.Outcome, file: URL, elapsed: Duration) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blob-timeout-\(UUID().uuidString)")
        let partial = PartialDownload(folder: folder, presentationId: 1, revision: 1)
        let blob = ResumableDownloader.Blob(
            presentationId: 1, blobId: "blob", revision: 1, expectedSize: Int64(size), link: server.link,
            freshLink: { () async throws(SyncError) -> ResumableDownloader.RenewedLink in throw .interrupted })
        var logger = Logger(label: "test.blob-timeout")
        logger.logLevel = .critical
        var downloader = ResumableDownloader(retry: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(20)), logger: logger)
        downloader.readTimeout = readTimeout
        downloader.rateLimiter = rate.map(TransferRateLimiter.init)
        let started = ContinuousClock.now
        let outcome = try await downloader.download(blob, into: partial) { _ in }
        return (outcome, partial.partFile, ContinuousClock.now - started)
    }

    @Test(
        "1.2 MB limited to 256 KiB/s with a 1.2 s read timeout: the limiter's pauses stop the socket reads for longer than that, and the one connection is kept"
    )
    func limiterPausesAreNotStalls() async throws {
        let server = try RangePolicyBlobServer(suffixAnswer: .partial)
        defer { server.stop() }
        var seeded = SeededBytes(seed: 41)
        let blob = seeded.bytes(1_200_000)
        server.serve(blob)
        // The reader pays for each part after writing it and sleeps while ahead of the rate; the
        // connection's buffer fills meanwhile and NIO stops reading the socket until the reader has
        // drained 8 parts of up to 64 KB: pauses of about 2 s at this rate, which an idle-read
        // timer of 1.2 s would cut. The timeout is what a loaded machine's stall must stay under:
        // at 512 KiB/s with 500 ms (as before) a test process starved for half a second beside
        // three compilers was cut, a second request; at 2 MiB/s with 150 ms, more often still.
        let run = try await Self.download(
            from: server, size: blob.count, readTimeout: .milliseconds(1200), rate: TransferRate(bytesPerSecond: 256 << 10))
        #expect(server.requests == 1, "ranges asked: \(server.rangesAsked)")
        #expect(run.outcome.transferred == Int64(blob.count))
        #expect(try Data(contentsOf: run.file) == blob)
        try? FileManager.default.removeItem(at: run.file.deletingLastPathComponent())
    }

    @Test("a server that goes silent mid-body is still cut after the read timeout, and the download resumes where it stopped")
    func silentServerIsCut() async throws {
        let server = try RangePolicyBlobServer(suffixAnswer: .partial, silentAfter: 300_000, silence: .seconds(20))
        defer { server.stop() }
        var seeded = SeededBytes(seed: 42)
        let blob = seeded.bytes(1_000_000)
        server.serve(blob)
        // 1 s: silence a loaded machine can cause before byte 300,000 stays well under it.
        let run = try await Self.download(from: server, size: blob.count, readTimeout: .seconds(1), rate: nil)
        #expect(server.requests == 2, "ranges asked: \(server.rangesAsked)")
        #expect(server.rangesAsked.last == "bytes=300000-")
        #expect(try Data(contentsOf: run.file) == blob)
        // Cut at the timeout, not when the server gives up 20 s later: the download was whole
        // while the first reply was still silent (the order of events, not a time bound).
        #expect(server.silencesEnded == 0, "took \(run.elapsed): the download waited for the server to give up")
        try? FileManager.default.removeItem(at: run.file.deletingLastPathComponent())
    }
}
