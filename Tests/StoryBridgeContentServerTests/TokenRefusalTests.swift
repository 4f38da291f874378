import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// Tokens the server did not issue, or that no longer hold, are refused with the same answers
/// whatever signs them: 401 and a sentence on the content routes, 400 `invalid_grant` at the token
/// endpoint.
@Suite("Content server: refused tokens")
struct TokenRefusalTests {
    /// The claims of `token`, decoded as the server's claim type.
    private func claims(of token: String) throws -> AccessTokenClaims {
        let payload = try JSONSerialization.data(withJSONObject: try jwtClaims(token))
        return try JSONDecoder().decode(AccessTokenClaims.self, from: payload)
    }

    /// A token of the same claims signed with a key the server does not have.
    private func signedElsewhere(_ claims: AccessTokenClaims) async -> String {
        await JSONWebToken(key: Data((0..<32).map { _ in UInt8.random(in: 0...255) })).sign(claims)
    }

    @Test("a token with the server's claims but signed with another key answers 401: the signature is not valid")
    func anotherKey() async throws {
        try await ContentLab().withServer { client in
            let genuine = try await client.serviceToken()
            #expect(try await client.get("/v1/clients", token: genuine).status == 200)
            let forged = await signedElsewhere(try claims(of: genuine))
            let reply = try await client.get("/v1/clients", token: forged)
            #expect(reply.status == 401)
            #expect(try reply.object()["error"] as? String == "the token's signature is not valid")
        }
    }

    @Test("a token whose claims were changed after signing (a later exp) answers 401: the signature is not valid")
    func changedClaims() async throws {
        try await ContentLab().withServer { client in
            let genuine = try await client.serviceToken()
            var changed = try claims(of: genuine)
            changed.exp += 3600
            let otherPayload = await signedElsewhere(changed).split(separator: ".")[1]
            let parts = genuine.split(separator: ".")
            let tampered = [parts[0], otherPayload, parts[2]].joined(separator: ".")
            let reply = try await client.get("/v1/clients", token: tampered)
            #expect(reply.status == 401)
            #expect(try reply.object()["error"] as? String == "the token's signature is not valid")
        }
    }

    @Test("a token of the server's key that has expired answers 401: the token has expired")
    func expired() async throws {
        try await ContentLab.servingOnManualClock(tokenLifetime: 60, clockSkew: 0) { client, clock in
            let token = try await client.serviceToken()
            clock.advance(by: .seconds(61))
            let reply = try await client.get("/v1/clients", token: token)
            #expect(reply.status == 401)
            #expect(try reply.object()["error"] as? String == "the token has expired")
        }
    }

    @Test("something that is not a JWT, and a refresh token used as an access token, answer 401 each with its reason")
    func notAnAccessToken() async throws {
        try await ContentLab().withServer { client in
            for garbage in ["not-a-token", "a.b.c"] {
                let reply = try await client.get("/v1/clients", token: garbage)
                #expect(reply.status == 401)
                #expect(try reply.object()["error"] as? String == "the token is not a JWT this server issued", "\(garbage)")
            }
            let refresh = try await client.appRefreshToken()
            let reply = try await client.get("/v1/clients", token: refresh)
            #expect(reply.status == 401)
            #expect(try reply.object()["error"] as? String == "a refresh token cannot be used as an access token")
        }
    }

    @Test("a refresh token signed with another key answers 400 invalid_grant")
    func refreshFromAnotherKey() async throws {
        try await ContentLab().withServer { client in
            let genuine = try await client.appRefreshToken()
            let forged = await signedElsewhere(try claims(of: genuine))
            let reply = try await client.refresh(forged)
            #expect(reply.status == 400)
            #expect(try reply.object()["error"] as? String == "invalid_grant")
            #expect(try reply.object()["error_description"] as? String == "the refresh token is not valid")
        }
    }
}
