import Foundation
import Logging
import StoryBridgeSync
import Testing

@Suite("Downloads: every byte received before a drop is kept")
struct DroppedDownloadTests {
    static let size = 3_000_000

    func downloader() -> ResumableDownloader {
        var logger = Logger(label: "test.download")
        logger.logLevel = .critical
        return ResumableDownloader(retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(10)), logger: logger)
    }

    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-drops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(
        "drops after 1,500,250, 589,289, 100,003 and 7 bytes: each resume starts where the bytes served end; in all the blob is served once"
    )
    func dropsAtSeveralPoints() async throws {
        var generator = SeededBytes(seed: 42)
        let blob = generator.bytes(Self.size)
        let drops = [1_500_250, 589_289, 100_003, 7]
        let server = try DroppingBlobServer(blob: blob, drops: drops)
        defer { server.stop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let partial = PartialDownload(folder: folder, presentationId: 9, revision: 1)
        let spec = ResumableDownloader.Blob(
            presentationId: 9, blobId: "blob-9", revision: 1, expectedSize: Int64(Self.size), link: server.link,
            freshLink: { () async throws(SyncError) -> ResumableDownloader.RenewedLink in throw .noContentPackage(9) })
        let outcome = try await downloader().download(spec, into: partial) { _ in }

        // Compared outside #expect: a failed expectation on two large Data values is diffed for hours.
        let same = try Data(contentsOf: partial.partFile) == blob
        #expect(same)
        #expect(outcome.size == Int64(Self.size))
        #expect(outcome.transferred == Int64(Self.size))
        var resumedAt = 0
        var expectedRanges = [""]
        for drop in drops {
            resumedAt += drop
            expectedRanges.append("bytes=\(resumedAt)-")
        }
        #expect(server.rangesAsked == expectedRanges)
        // At most the package size plus one chunk crosses the wire in all (here: exactly the size).
        #expect(server.bodyBytesServed <= Self.size + 16_384)
        #expect(server.bodyBytesServed == Self.size)
        // Azure needs x-ms-version for an open-ended range; the SAS query goes out as it came.
        #expect(server.azureVersions.allSatisfy { $0 == ResumableDownloader.azureStorageVersion })
        #expect(
            server.requestLines.allSatisfy { $0 == "GET /container/blob.zip?sv=2016-05-31&sr=b&sig=a%2Bb%3D&se=2030-01-01&sp=r HTTP/1.1" })
    }
}
