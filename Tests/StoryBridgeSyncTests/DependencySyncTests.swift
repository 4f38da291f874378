import Foundation
import StoryBridge
import StoryBridgeSync
import Testing

@Suite("Sync: sync --content ID brings the decks ID opens")
struct DependencySyncTests {
    @Test("dependencies are brought recursively, a cycle is walked once, an id the service does not offer is named")
    func bringsWhatItOpens() async throws {
        let lab = try await SyncLab.serving { for id in 1...4 { try $0.publish(id: id) } }
        // 1 opens 2; 2 opens 3 and 1 (a cycle); 3 opens 99, which the service does not offer; 4 is unrelated.
        let opens: [Int: [Int]] = [1: [2], 2: [3, 1], 3: [99]]
        let front = try RewritingFront(
            upstream: lab.baseURL,
            rewrite: { path, object in
                guard path.hasPrefix("/v1/presentations/"), let id = object["id"] as? Int, let ids = opens[id] else { return nil }
                var object = object
                object["presentations"] = ids
                return object
            })
        try await lab.loginAsService(api: front.baseURL)
        let run = try await lab.cli(["sync", "--content", "1"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("content: 3 installed"))
        #expect(run.output.contains("also brought, opened by the presentations asked for: 2, 3"))
        #expect(run.output.contains("opened by the presentations asked for but not offered by the service: 99"))
        let installed = try lab.clientLibrary().entries().map(\.presentation.id)
        #expect(installed == [1, 2, 3])
        await front.stop()
        await lab.stopServer()
    }
}
