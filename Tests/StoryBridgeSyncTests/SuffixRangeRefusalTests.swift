import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Testing

/// Delta updates against a blob store that answers ordinary ranges but not suffix ranges
/// (`Range: bytes=-N`), the delta path's first request: the content API goes through a
/// ``RewritingFront`` whose package links point at a ``RangePolicyBlobServer``.
@Suite("Delta updates: a blob store that refuses suffix ranges", .serialized)
struct SuffixRangeRefusalTests {
    /// Publishes deck 3 (v1), syncs it whole through the blob server, publishes v2 and syncs
    /// again; returns the second run with the package size and the blob server's counters.
    static func update(suffixAnswer: RangePolicyBlobServer.SuffixAnswer, keepsAlive: Bool = false) async throws -> (
        report: ContentSyncReport, events: [ContentSyncEvent], packageSize: Int, served: Int, requests: Int, ranges: [String],
        connections: Int
    ) {
        let lab = try await SyncLab.serving { try DeltaSyncTests.publishDeck($0, id: 3, version: "v1") }
        let blobs = try RangePolicyBlobServer(suffixAnswer: suffixAnswer, keepsAlive: keepsAlive)
        defer { blobs.stop() }
        let front = try RewritingFront(
            upstream: lab.baseURL,
            rewrite: { path, object in
                guard path == "/v1/contentpackages/3" else { return nil }
                var object = object
                object["sas"] = blobs.link
                return object
            })
        try await lab.loginAsService(api: front.baseURL)

        func serveOfferedPackage() async throws -> Int {
            try await DeltaSyncTests.syncMetadata(lab)
            let file = try await lab.serverPackage(id: 3)
            try await SyncLab.waitUntil { FileManager.default.fileExists(atPath: file.path) }
            let package = try Data(contentsOf: file)
            blobs.serve(package)
            return package.count
        }
        _ = try await serveOfferedPackage()
        let first = try await DeltaSyncTests.sync(lab)
        #expect(first.report.installed.map(\.id) == [3], "\(first.report.failed)")

        try DeltaSyncTests.publishDeck(lab, id: 3, version: "v2")
        let size = try await serveOfferedPackage()
        let second = try await DeltaSyncTests.sync(lab)
        #expect(second.report.failed.isEmpty, "\(second.report.failed)")
        #expect(second.report.installed.map(\.id) == [3])
        try DeltaSyncTests.expectSameFiles(lab, id: 3)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await front.stop()
        await lab.stopServer()
        return (second.report, second.events, size, blobs.bodyBytesServed, blobs.requests, blobs.rangesAsked, blobs.connections)
    }

    static func reasons(_ events: [ContentSyncEvent]) -> [String] {
        events.compactMap { if case .deltaDeclined(3, let reason) = $0 { reason } else { nil } }
    }

    @Test("the test store answers suffix ranges as RFC 9110 says: the update is a delta")
    func suffixRangesAnswered() async throws {
        let run = try await Self.update(suffixAnswer: .partial)
        #expect(run.report.deltaUpdates == 1)
        #expect(run.ranges.first == "bytes=-\(65_557)")
        #expect(run.served < run.packageSize / 4, "\(run.served) of \(run.packageSize) bytes served")
    }

    @Test("416 to the suffix range: the whole package is downloaded, saying why, and at most 1.02x its size crosses the network")
    func suffixRangeUnsatisfiable() async throws {
        let run = try await Self.update(suffixAnswer: .unsatisfiable)
        #expect(run.report.deltaUpdates == 0)
        #expect(Self.reasons(run.events) == [DeltaFallback.suffixRangeRefused(status: 416).description])
        #expect(run.served <= run.packageSize + run.packageSize / 50, "\(run.served) bytes served for \(run.packageSize)")
        #expect(run.report.bytesTransferred == Int64(run.packageSize))
        #expect(run.requests == 2, "\(run.ranges)")
    }

    @Test(
        "the whole package (200) to the suffix range: kept as the full download, so the package crosses the network once, and the reason is said"
    )
    func suffixRangeAnsweredWithTheWholePackage() async throws {
        let run = try await Self.update(suffixAnswer: .wholeBlob)
        #expect(run.report.deltaUpdates == 0)
        #expect(Self.reasons(run.events) == [DeltaFallback.suffixRangeRefused(status: 200).description])
        // Cutting that reply and asking again would have sent up to the socket buffers' worth
        // twice (all of this 1.5 MB package on loopback).
        #expect(run.served <= run.packageSize + run.packageSize / 50, "\(run.served) bytes served for \(run.packageSize)")
        #expect(run.requests == 1, "\(run.ranges)")
        #expect(run.report.bytesTransferred == Int64(run.packageSize))
        #expect(run.report.bytesResumed == 0)
    }
}
