import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: refresh tokens rotate")
struct RefreshRotationTests {
    @Test("Each refresh answers a new refresh token; the used one is refused after the grace, the new one works")
    func rotates() async throws {
        try await ContentLab.servingOnManualClock { client, clock in
            let first = try await client.appRefreshToken()
            let second = try await client.refresh(first)
            #expect(second.status == 200)
            let secondToken = try #require(try second.object()["refresh_token"] as? String)
            #expect(secondToken != first)
            clock.advance(by: .seconds(11))
            let reused = try await client.refresh(first)
            #expect(reused.status == 400)
            #expect(try reused.object()["error"] as? String == "invalid_grant")
            #expect(
                try reused.object()["error_description"] as? String
                    == "the refresh token has already been used; use the one answered with it")
            let third = try await client.refresh(secondToken)
            #expect(third.status == 200)
            let thirdToken = try #require(try third.object()["refresh_token"] as? String)
            #expect(thirdToken != secondToken)
            #expect(try await client.refresh(thirdToken).status == 200)
            // Two generations back is refused even inside the grace of the last rotation.
            #expect(try await client.refresh(secondToken).status == 400)
        }
    }

    @Test("A second use within the grace (a concurrent refresh) answers the same successor, not a fork")
    func concurrentUseWithinGrace() async throws {
        try await ContentLab.servingOnManualClock { client, clock in
            let first = try await client.appRefreshToken()
            async let a = client.refresh(first)
            async let b = client.refresh(first)
            let (left, right) = try await (a, b)
            #expect(left.status == 200)
            #expect(right.status == 200)
            let successor = try #require(try left.object()["refresh_token"] as? String)
            #expect(try right.object()["refresh_token"] as? String == successor)
            clock.advance(by: .seconds(9))
            #expect(try await client.refresh(first).object()["refresh_token"] as? String == successor)
            #expect(try await client.refresh(successor).status == 200)
        }
    }

    @Test("Rotation survives a restart: the used token stays refused, the current one works")
    func survivesRestart() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Date())
        let configuration = lab.configuration(clock: clock)
        let (used, current) = try await lab.withServer(configuration) { client in
            let first = try await client.appRefreshToken()
            let second = try #require(try await client.refresh(first).object()["refresh_token"] as? String)
            return (first, second)
        }
        let state = lab.directory.root.appendingPathComponent("content-server/refresh-token-families.json")
        let stored = try String(contentsOf: state, encoding: .utf8)
        #expect(!stored.contains(current), "the state file holds no token")
        clock.advance(by: .seconds(11))
        try await lab.withServer(configuration) { client throws -> Void in
            #expect(try await client.refresh(used).status == 400)
            #expect(try await client.refresh(current).status == 200)
        }
    }
}

extension ContentClient {
    /// A refresh token of the lab's user, from the password grant.
    func appRefreshToken() async throws -> String {
        try #require(try await passwordGrant().object()["refresh_token"] as? String)
    }

    /// `POST /connect/token` with the refresh grant for the lab's app.
    func refresh(_ refreshToken: String) async throws -> Reply {
        try await token([
            "grant_type": "refresh_token", "client_id": ContentLab.appId, "client_secret": ContentLab.appSecret,
            "refresh_token": refreshToken,
        ])
    }
}
