import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Synchronization
import Testing

@Suite("Sync: token renewal margin and rotated refresh tokens", .serialized)
struct TokenRenewalTests {
    @Test("a 3 s token is renewed at three quarters of its life, not before every request")
    func shortTokenMargin() async throws {
        let lab = try await SyncLab.serving(tokenLifetime: 3) { try $0.publish(id: 1) }
        try await lab.loginAsService()
        let start = Date()
        let clock = Mutex(start)
        let session = try #require(try SessionStore(folder: lab.clientDirectory.root).load())
        let http = SyncHTTPClient.make()
        let auth = AuthClient(http: http, authURL: session.authURL)
        // The session as received at `start`: the provider's own clock decides when it is stale.
        let reply = try JSONDecoder().decode(
            StoryBridgeSync.TokenReply.self, from: Data(#"{"access_token": "\#(session.accessToken)", "expires_in": 3}"#.utf8))
        let fresh = SyncSession(
            authURL: session.authURL, apiURL: session.apiURL, kind: session.kind, clientId: session.clientId,
            clientSecret: session.clientSecret, username: nil, reply: reply, now: start)
        let provider = AccessTokenProvider(session: fresh, store: nil, auth: auth, now: { clock.withLock { $0 } })
        // Twelve requests over 3 s of the provider's clock (every 0.25 s).
        for step in 0..<12 {
            clock.withLock { $0 = start.addingTimeInterval(Double(step) * 0.25) }
            _ = try await provider.token()
        }
        // Renewed once (at 2.25 s, when 0.75 s = a quarter of the life was left), not 12 times.
        #expect(await provider.renewals == 1)
        try await http.shutdown()
        await lab.stopServer()
    }

    @Test("a rotated refresh token is saved and used: the one it replaced is refused by the server afterwards")
    func rotatedRefreshToken() async throws {
        let lab = try await SyncLab.serving(tokenLifetime: 2, refreshGrace: 0) { try $0.publish(id: 1) }
        #expect(try await lab.loginAsUser().status == 0)
        let store = SessionStore(folder: lab.clientDirectory.root)
        let original = try #require(try store.load()?.refreshToken)
        for round in 1...2 {
            try await Task.sleep(for: .milliseconds(2100))  // the access token has expired
            let run = try await lab.cli(["sync", "--content"])
            #expect(run.status == 0, "round \(round): \(run.errors)")
        }
        let current = try #require(try store.load()?.refreshToken)
        #expect(current != original)
        let http = SyncHTTPClient.make()
        let auth = AuthClient(http: http, authURL: URL(string: lab.baseURL)!)
        await #expect(throws: SyncError.self) {
            _ = try await auth.requestToken(.refreshToken(clientId: SyncLab.appId, clientSecret: SyncLab.appSecret, refreshToken: original))
        }
        try await http.shutdown()
        #expect(try lab.clientLibrary().entry(id: 1) != nil)
        await lab.stopServer()
    }
}
