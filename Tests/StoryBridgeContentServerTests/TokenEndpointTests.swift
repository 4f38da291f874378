import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: token endpoint")
struct TokenEndpointTests {
    @Test("client_credentials answers a Bearer JWT without a refresh token; claims as the real service's: no sub, client_id, scope array")
    func clientCredentials() async throws {
        try await ContentLab().withServer { client in
            let reply = try await client.token([
                "grant_type": "client_credentials", "client_id": ContentLab.serviceId,
                "client_secret": ContentLab.serviceSecret,
            ])
            #expect(reply.status == 200)
            let body = try reply.object()
            #expect(body["token_type"] as? String == "Bearer")
            #expect(body["expires_in"] as? Int == 3600)
            #expect(body["refresh_token"] == nil)
            #expect(body["scope"] as? String == "content myo tables")
            let claims = try jwtClaims(try #require(body["access_token"] as? String))
            #expect(claims["sub"] == nil)
            #expect(claims["name"] == nil)
            #expect(claims["client_id"] as? String == ContentLab.serviceId)
            #expect(claims["scope"] as? [String] == ["content", "myo", "tables"])
            #expect(claims["iss"] as? String == client.baseURL)
            #expect(claims["aud"] as? [String] == ["\(client.baseURL)/resources", "content", "myo", "tables"])
            #expect(claims["nbf"] as? Int == claims["iat"] as? Int)
        }
    }

    @Test(
        "password grant: claims sub (a stable GUID), name, fullname, iat, nbf, exp = iat + lifetime, client_id, scope array; a refresh token"
    )
    func passwordGrant() async throws {
        let lab = try ContentLab()
        try await lab.withServer(lab.configuration(tokenLifetime: 120)) { client in
            let before = Int(Date().timeIntervalSince1970)
            let reply = try await client.passwordGrant()
            #expect(reply.status == 200)
            let body = try reply.object()
            #expect(body["expires_in"] as? Int == 120)
            #expect(body["scope"] as? String == "content myo tables offline_access")
            #expect((body["refresh_token"] as? String)?.isEmpty == false)
            let token = try #require(body["access_token"] as? String)
            let header = try #require(Data(base64Encoded: String(token.split(separator: ".")[0]) + "="))
            #expect(String(decoding: header, as: UTF8.self).contains(#""alg":"HS256""#))
            let claims = try jwtClaims(token)
            let subject = try #require(claims["sub"] as? String)
            #expect(UUID(uuidString: subject) != nil, "sub \(subject) is a GUID")
            #expect(subject == subject.lowercased())
            #expect(claims["name"] as? String == ContentLab.username)
            #expect(claims["fullname"] as? String == ContentLab.fullname)
            #expect(claims["idp"] as? String == "local")
            let issuedAt = try #require(claims["iat"] as? Int)
            // Issued between the request and now (a loaded machine may take seconds to answer).
            #expect(issuedAt >= before - 1 && issuedAt <= Int(Date().timeIntervalSince1970) + 1)
            #expect(claims["exp"] as? Int == issuedAt + 120)
            #expect(claims["nbf"] as? Int == issuedAt)
            #expect(claims["client_id"] as? String == ContentLab.appId)
            #expect(claims["scope"] as? [String] == ["content", "myo", "tables", "offline_access"])
            #expect(try await client.get("/v1/clients", token: token).status == 200)
            // The same GUID on the next login.
            let again = try jwtClaims(try #require(try await client.passwordGrant().object()["access_token"] as? String))
            #expect(again["sub"] as? String == subject)
        }
    }

    @Test("refresh_token answers a new access token and a new (rotated) refresh token")
    func refresh() async throws {
        try await ContentLab().withServer { client in
            let first = try await client.passwordGrant().object()
            let refreshToken = try #require(first["refresh_token"] as? String)
            let reply = try await client.refresh(refreshToken)
            #expect(reply.status == 200)
            let body = try reply.object()
            let rotated = try #require(body["refresh_token"] as? String)
            #expect(rotated != refreshToken)
            let access = try #require(body["access_token"] as? String)
            #expect(try jwtClaims(access)["name"] as? String == ContentLab.username)
            #expect(try await client.get("/v1/clients/", token: access).status == 200)

            // A refresh token is not an access token, nor the reverse.
            #expect(try await client.get("/v1/clients", token: refreshToken).status == 401)
            let misuse = try await client.refresh(access)
            #expect(misuse.status == 400)
            #expect(try misuse.object()["error"] as? String == "invalid_grant")
        }
    }

    @Test("errors: 400 invalid_client, invalid_grant, unsupported_grant_type, invalid_request")
    func errors() async throws {
        try await ContentLab().withServer { client in
            func error(_ fields: [String: String]) async throws -> String? {
                let reply = try await client.token(fields)
                #expect(reply.status == 400, "\(fields) → \(reply.status) \(reply.text)")
                #expect(reply.header("content-type")?.hasPrefix("application/json") == true)
                return try reply.object()["error"] as? String
            }
            let app = ["client_id": ContentLab.appId, "client_secret": ContentLab.appSecret]
            #expect(
                try await error(["grant_type": "client_credentials", "client_id": ContentLab.serviceId, "client_secret": "wrong"])
                    == "invalid_client")
            #expect(
                try await error(["grant_type": "client_credentials", "client_id": "nobody", "client_secret": "x"])
                    == "invalid_client")
            // App credentials are not service credentials.
            #expect(try await error(app.merging(["grant_type": "client_credentials"]) { $1 }) == "invalid_client")
            #expect(
                try await error(app.merging(["grant_type": "password", "username": ContentLab.username, "password": "nope"]) { $1 })
                    == "invalid_grant")
            #expect(
                try await error(app.merging(["grant_type": "password", "username": "ghost", "password": ContentLab.password]) { $1 })
                    == "invalid_grant")
            #expect(try await error(app.merging(["grant_type": "password", "username": ContentLab.username]) { $1 }) == "invalid_request")
            #expect(try await error(app.merging(["grant_type": "refresh_token", "refresh_token": "garbage"]) { $1 }) == "invalid_grant")
            #expect(try await error(app.merging(["grant_type": "authorization_code"]) { $1 }) == "unsupported_grant_type")
            #expect(try await error(app) == "invalid_request")

            let json = try await client.send(
                "POST", "/connect/token", headers: ["Content-Type": "application/json"], body: Data(#"{"grant_type":"password"}"#.utf8))
            #expect(json.status == 400)
            #expect(try json.object()["error"] as? String == "invalid_request")
        }
    }

    @Test("client_secret_basic: credentials in Authorization: Basic are accepted")
    func basicCredentials() async throws {
        try await ContentLab().withServer { client in
            let basic = Data("\(ContentLab.serviceId):\(ContentLab.serviceSecret)".utf8).base64EncodedString()
            let reply = try await client.send(
                "POST", "/connect/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic \(basic)"],
                body: Data("grant_type=client_credentials".utf8))
            #expect(reply.status == 200)
        }
    }

    @Test("an access token stops working once it expires (5 s lifetime, no clock skew, on the server's manual clock)")
    func expiry() async throws {
        try await ContentLab.servingOnManualClock(tokenLifetime: 5, clockSkew: 0) { client, clock in
            let token = try await client.serviceToken()
            #expect(try await client.get("/v1/clients", token: token).status == 200)
            clock.advance(by: .seconds(4))
            #expect(try await client.get("/v1/clients", token: token).status == 200, "still valid one second before exp")
            clock.advance(by: .seconds(2))
            let expired = try await client.get("/v1/clients", token: token)
            #expect(expired.status == 401)
            #expect(try expired.object()["error"] as? String == "the token has expired")
        }
    }

    @Test("--test-reject-refresh: refresh grants answer 400 invalid_grant")
    func rejectRefresh() async throws {
        let lab = try ContentLab()
        try await lab.withServer(lab.configuration(faults: TestFaults(rejectRefresh: true))) { client in
            let refreshToken = try await client.appRefreshToken()
            let reply = try await client.refresh(refreshToken)
            #expect(reply.status == 400)
            #expect(try reply.object()["error"] as? String == "invalid_grant")
        }
    }

    @Test("tokens survive a restart: the signing secret is kept in the data folder")
    func secretKept() async throws {
        let lab = try ContentLab()
        let token = try await lab.withServer { client in try await client.serviceToken() }
        let status = try await lab.withServer { client in try await client.get("/v1/clients", token: token).status }
        #expect(status == 200)
        let secret = lab.directory.root.appendingPathComponent("content-server/signing-secret")
        let mode = try FileManager.default.attributesOfItem(atPath: secret.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }
}
