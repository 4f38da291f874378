import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

/// The real CLI against a content server that answers its first requests with 503, 500 or 429:
/// the sync waits (the server's `Retry-After` when it sends one, a jittered back-off otherwise),
/// asks again, and succeeds.
@Suite("Back-off on 5xx and 429", .serialized)
struct BackOffTests {
    /// Each failed request of the log, with the request that came next for the same path.
    static func retries(_ log: [FaultRecord]) -> [(failed: FaultRecord, retry: FaultRecord?)] {
        log.enumerated().filter { $0.element.failed }.map { index, failed in
            (failed, log[(index + 1)...].first { $0.path == failed.path })
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test("503 with Retry-After: 1 on the content routes: two retries, each after at least a second")
    func unavailableContentRoutes() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 5, title: "five", payloadBytes: 100_000) }
        defer { withExtendedLifetime(lab) {} }
        try await lab.startServer(faults: TestFaults(failFirst: 2, failStatus: 503, retryAfter: 1, failOn: .content))
        let result = try await lab.cli(["sync", "--content"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try lab.installedTitle(5) == "five")
        let log = lab.server!.faultLog
        let retries = Self.retries(log)
        #expect(retries.count == 2)
        #expect(retries.allSatisfy { $0.failed.path.hasPrefix("/v1/") })
        for (failed, retry) in retries {
            let retry = try #require(retry, "no retry of \(failed.path)")
            #expect(Self.seconds(retry.at - failed.at) >= 0.95, "retried \(failed.path) too early")
        }
        await lab.stopServer()
    }

    @Test("429 with Retry-After: 1 on the blob link: the download waits, asks again and completes")
    func throttledBlob() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 5, title: "five", payloadBytes: 300_000) }
        defer { withExtendedLifetime(lab) {} }
        #expect(try await lab.cli(["sync"]).status == 0)
        try await lab.startServer(faults: TestFaults(failFirst: 2, failStatus: 429, retryAfter: 1, failOn: .blobs))
        let result = try await lab.cli(["sync", "--content"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try lab.installedTitle(5) == "five")
        #expect(try await lab.catalog()[5]?.state == .ready)
        let log = lab.server!.faultLog
        #expect(log.filter(\.failed).count == 2)
        #expect(log.filter { !$0.failed }.count == 1, "one successful blob request after the two refused ones")
        for (failed, retry) in Self.retries(log) {
            #expect(failed.path.hasPrefix("/blobs/packages/"))
            let retry = try #require(retry)
            #expect(Self.seconds(retry.at - failed.at) >= 0.95, "retried the blob too early")
        }
        await lab.stopServer()
    }

    @Test("500 without Retry-After: the sync backs off on its own (jittered, well under a second) and succeeds")
    func serverErrorWithoutRetryAfter() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 5, title: "five", payloadBytes: 100_000) }
        defer { withExtendedLifetime(lab) {} }
        try await lab.startServer(faults: TestFaults(failFirst: 3, failStatus: 500, retryAfter: nil, failOn: .all))
        let result = try await lab.cli(["sync", "--content"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try lab.installedTitle(5) == "five")
        let retries = Self.retries(lab.server!.faultLog)
        #expect(retries.count == 3)
        for (failed, retry) in retries {
            let retry = try #require(retry)
            // The first back-off waits between 125 and 250 ms, the second and third up to 0.5 and 1 s.
            #expect(Self.seconds(retry.at - failed.at) >= 0.1, "no back-off before retrying \(failed.path)")
        }
        await lab.stopServer()
    }

    @Test("A server that keeps answering 503 makes the sync give up with the server's status, not hang")
    func givesUp() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 5, title: "five", payloadBytes: 100_000) }
        defer { withExtendedLifetime(lab) {} }
        try await lab.startServer(faults: TestFaults(failFirst: 1000, failStatus: 503, retryAfter: 0, failOn: .content))
        let result = try await lab.cli(["sync"])
        #expect(result.status == 76, "\(result.errors)")
        #expect(result.errors.contains("503"))
        #expect(lab.server!.faultLog.count == RetryPolicy().maxAttempts)
        await lab.stopServer()
    }
}
