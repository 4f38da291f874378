import Foundation
import StoryBridgeSync
import Testing

/// The range requests of one delta update share one kept-alive connection when the blob store
/// keeps connections, and still work, one connection each, when it closes every one.
@Suite("Delta updates: one kept-alive connection for a package's range requests", .serialized)
struct DeltaConnectionTests {
    @Test("a store that keeps connections alive: every range request of the update goes on one connection")
    func oneConnection() async throws {
        let run = try await SuffixRangeRefusalTests.update(suffixAnswer: .partial, keepsAlive: true)
        #expect(run.report.deltaUpdates == 1)
        #expect(run.requests >= 2, "\(run.ranges)")
        #expect(run.connections == 1, "\(run.connections) connections for \(run.ranges)")
        #expect(run.report.deltaRequests == run.requests)
        #expect(run.report.deltaConnections == 1)
    }

    @Test("a store that closes every connection (Connection: close): the update is a delta all the same, one connection per request")
    func connectionPerRequest() async throws {
        let run = try await SuffixRangeRefusalTests.update(suffixAnswer: .partial, keepsAlive: false)
        #expect(run.report.deltaUpdates == 1)
        #expect(run.requests >= 2, "\(run.ranges)")
        #expect(run.connections == run.requests, "\(run.connections) connections for \(run.ranges)")
        #expect(run.report.deltaConnections == run.requests)
    }
}
