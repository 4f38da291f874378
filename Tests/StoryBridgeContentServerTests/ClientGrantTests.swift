import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: a token sees only the clients granted to its service or user")
struct ClientGrantTests {
    static let annaId = "0f8fad5b-d9cb-469f-a165-70867728950e"

    /// Client 10 holds presentation 1, client 20 presentation 2; the service is granted 10, Anna
    /// 20 (role 2), Boris every client.
    func grantedLab() throws -> (ContentLab, ContentServerConfiguration) {
        let lab = try ContentLab()
        try lab.install(id: 1)
        try lab.install(id: 2)
        let accounts = ContentServerAccounts(
            clients: [
                .init(id: 10, name: "Cardiology", presentations: [.init(id: 1)]),
                .init(id: 20, name: "Neurology", presentations: [.init(id: 2)]),
            ],
            services: [.init(clientId: ContentLab.serviceId, clientSecret: ContentLab.serviceSecret, clients: [10])],
            apps: [.init(clientId: ContentLab.appId, clientSecret: ContentLab.appSecret)],
            users: [
                .init(
                    username: ContentLab.username, password: ContentLab.password, fullname: ContentLab.fullname, id: Self.annaId,
                    clients: [20], role: 2),
                .init(username: "boris", password: "boris-pass", fullname: "Boris"),
            ])
        return (lab, lab.configuration(accounts: accounts))
    }

    @Test("A service token lists only its client; the other client and its presentation answer 403, unknown ones 404")
    func serviceSeesItsClient() async throws {
        let (lab, configuration) = try grantedLab()
        try await lab.withServer(configuration) { client in
            let token = try await client.serviceToken()
            let clients = try await client.get("/v1/clients", token: token).array()
            #expect(clients.map { $0["id"] as? Int } == [10])
            #expect(try await client.get("/v1/clients/10", token: token).status == 200)
            #expect(try await client.get("/v1/clients/20", token: token).status == 403)
            #expect(try await client.get("/v1/clients/99", token: token).status == 404)
            #expect(try await client.get("/v1/presentations/1", token: token).status == 200)
            #expect(try await client.get("/v1/presentations/2", token: token).status == 403)
            #expect(try await client.get("/v1/contentpackages/2", token: token).status == 403)
        }
    }

    @Test("A user token sees the user's clients; clients and presentations list their users with GUID and role")
    func userSeesItsClients() async throws {
        let (lab, configuration) = try grantedLab()
        try await lab.withServer(configuration) { client in
            let login = try await client.passwordGrant().object()
            let token = try #require(login["access_token"] as? String)
            #expect(try jwtClaims(token)["sub"] as? String == Self.annaId)
            let clients = try await client.get("/v1/clients", token: token).array()
            #expect(clients.map { $0["id"] as? Int } == [20])
            let users = try #require(clients.first?["users"] as? [[String: Any]])
            #expect(users.contains { $0["id"] as? String == Self.annaId && $0["role"] as? Int == 2 })
            #expect(users.count == 2, "Anna and Boris (granted every client)")
            #expect(clients.first?.keys.contains("deviceLogTable") == true)
            #expect(try await client.get("/v1/presentations/1", token: token).status == 403)
            let presentation = try await client.get("/v1/presentations/2", token: token).object()
            let presentationUsers = try #require(presentation["users"] as? [[String: Any]])
            #expect(presentationUsers.contains { $0["id"] as? String == Self.annaId && $0["role"] as? Int == 2 })
            #expect(presentationUsers.allSatisfy { $0["revision"] is Int })

            // /v1/clients/{id} answers the same object as the list item.
            let one = try await client.get("/v1/clients/20", token: token)
            #expect(one.status == 200)
            #expect(try one.object()["name"] as? String == "Neurology")
            #expect(try await client.get("/v1/clients/20/", token: token).body == one.body)
        }
    }

    @Test("The config refuses grants of unknown clients and user ids that are not GUIDs")
    func configChecks() throws {
        let lab = try ContentLab()
        var accounts = lab.accounts(clients: [.init(id: 1, name: "A", presentations: [])])
        accounts.services[0].clients = [2]
        #expect(throws: ContentServerSetupError.self) { try accounts.validate() }
        accounts.services[0].clients = [1]
        accounts.users[0].id = "not-a-guid"
        #expect(throws: ContentServerSetupError.self) { try accounts.validate() }
        accounts.users[0].id = Self.annaId
        #expect(throws: Never.self) { try accounts.validate() }
    }
}
