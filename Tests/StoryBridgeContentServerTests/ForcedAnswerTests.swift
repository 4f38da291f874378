import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: forced answers for client tests (204, 403, an empty client list)")
struct ForcedAnswerTests {
    @Test("noContentPresentations: /v1/presentations/{id} answers 204 with no body; other decks and the package are served")
    func noContentPresentation() async throws {
        try await ContentLab.serving(decks: [1, 2], faults: TestFaults(noContentPresentations: [1])) { lab, client, token in
            let reply = try await client.get("/v1/presentations/1", token: token)
            #expect(reply.status == 204)
            #expect(reply.body.isEmpty)
            #expect(try await client.get("/v1/presentations/2", token: token).status == 200)
            #expect(try await client.get("/v1/contentpackages/1", token: token).status == 200)
        }
    }

    @Test("noContentPackages: /v1/contentpackages/{id} answers 204; the presentation itself is served")
    func noContentPackage() async throws {
        try await ContentLab.serving(decks: [1], faults: TestFaults(noContentPackages: [1])) { lab, client, token in
            let reply = try await client.get("/v1/contentpackages/1", token: token)
            #expect(reply.status == 204)
            #expect(reply.body.isEmpty)
            #expect(try await client.get("/v1/presentations/1", token: token).status == 200)
        }
    }

    @Test("forbiddenPresentations: 403 with a JSON error on the presentation and its package, still listed in the client")
    func forbidden() async throws {
        try await ContentLab.serving(decks: [1, 2], faults: TestFaults(forbiddenPresentations: [2])) { lab, client, token in
            for path in ["/v1/presentations/2", "/v1/contentpackages/2"] {
                let reply = try await client.get(path, token: token)
                #expect(reply.status == 403)
                #expect(try reply.object()["error"] is String)
            }
            let listed = try await client.get("/v1/clients", token: token).array()
            let ids = try #require(listed.first?["presentations"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            #expect(ids == [1, 2])
        }
    }

    @Test("emptyClientLists: the first N client lists are [] with 200, then the real list")
    func emptyClientListOnce() async throws {
        try await ContentLab.serving(decks: [1], faults: TestFaults(emptyClientLists: 1)) { lab, client, token in
            let first = try await client.get("/v1/clients", token: token)
            #expect(first.status == 200)
            #expect(try first.array().isEmpty)
            #expect(try await client.get("/v1/clients", token: token).array().count == 1)
        }
    }

    @Test("updateFaults changes the faults of a running server: 204 switched on and off again")
    func changedWhileRunning() async throws {
        try await ContentLab.servingRunning(decks: [1]) { (_, client, running, token) async throws in
            #expect(try await client.get("/v1/presentations/1", token: token).status == 200)
            running.updateFaults { $0.noContentPresentations = [1] }
            #expect(try await client.get("/v1/presentations/1", token: token).status == 204)
            running.updateFaults { $0.noContentPresentations = [] }
            running.updateFaults { $0.emptyClientLists = 1 }
            #expect(try await client.get("/v1/clients", token: token).array().isEmpty)
            #expect(try await client.get("/v1/presentations/1", token: token).status == 200)
            #expect(try await client.get("/v1/clients", token: token).array().count == 1)
        }
    }
}
