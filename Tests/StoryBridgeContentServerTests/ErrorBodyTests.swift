import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: error bodies name no local path")
struct ErrorBodyTests {
    @Test("Files that vanished from the data folder: the answers say what failed without a path")
    func vanishedFiles() async throws {
        let lab = try ContentLab()
        let entry = try lab.install(id: 1)
        try await lab.withServer { client in
            let token = try await client.serviceToken()
            let presentation = try await client.get("/v1/presentations/1", token: token).object()
            let mediaId = try #require((presentation["mediaFiles"] as? [[String: Any]])?.first?["id"] as? Int)
            let media = try await client.get("/v1/mediafiles/\(mediaId)", token: token).object()
            let mediaLink = try #require(media["sas"] as? String)
            try FileManager.default.removeItem(at: entry.presentation.root.appendingPathComponent("mediafiles/film.mp4"))
            let packageLink = try await client.packageLink(1, token: token)
            try FileManager.default.removeItem(at: entry.presentation.root)
            var replies = [try await client.get(mediaLink), try await client.get("/v1/slides/1", token: token)]
            try FileManager.default.removeItem(at: lab.directory.root.appendingPathComponent("content-server/packages/1-r1.zip"))
            replies.append(try await client.get(packageLink))
            replies.append(try await client.get("/v1/presentations/1", token: token))
            for reply in replies {
                #expect(reply.status >= 400)
                #expect(!reply.text.contains(lab.folder.path), "\(reply.status) \(reply.text)")
                #expect(!reply.text.contains("/data/"), "\(reply.status) \(reply.text)")
            }
        }
    }
}
