import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: failed logins are limited per user and per address")
struct LoginLimitTests {
    static func password(_ username: String, _ password: String) -> [String: String] {
        [
            "grant_type": "password", "client_id": ContentLab.appId, "client_secret": ContentLab.appSecret,
            "username": username, "password": password,
        ]
    }

    @Test(
        "After 5 wrong passwords for a user, even the right one gets 429 with Retry-After until the window passes; other users are not affected"
    )
    func perUser() async throws {
        let lab = try ContentLab()
        var accounts = lab.accounts()
        accounts.users.append(.init(username: "boris", password: "boris-pass", fullname: "Boris"))
        let clock = ManualHostClock(start: Date())
        let configuration = lab.configuration(accounts: accounts, clock: clock)
        try await lab.withServer(configuration) { client in
            var statuses: [Int] = []
            for _ in 0..<100 { statuses.append(try await client.token(Self.password(ContentLab.username, "wrong")).status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 400 })
            #expect(statuses.dropFirst(5).allSatisfy { $0 == 429 }, "\(statuses)")
            let refused = try await client.passwordGrant()
            #expect(refused.status == 429)
            #expect(try refused.object()["error"] as? String == "too_many_requests")
            let wait = try #require(refused.header("retry-after").flatMap(Int.init))
            #expect((295...300).contains(wait), "Retry-After \(wait)")
            #expect(try await client.token(Self.password("boris", "boris-pass")).status == 200)
            clock.advance(by: .seconds(wait))
            #expect(try await client.passwordGrant().status == 200)
        }
    }

    @Test("20 failures from one address within the window refuse that address for every user name and for client secrets")
    func perAddress() async throws {
        try await ContentLab.servingOnManualClock { client, clock in
            for index in 0..<20 {
                #expect(try await client.token(Self.password("guess\(index)", "x")).status == 400)
            }
            let refused = try await client.token(Self.password("guess-next", "x"))
            #expect(refused.status == 429)
            #expect(refused.header("retry-after") != nil)
            let service = try await client.token([
                "grant_type": "client_credentials", "client_id": ContentLab.serviceId, "client_secret": ContentLab.serviceSecret,
            ])
            #expect(service.status == 429, "the address is limited whatever the grant")
            clock.advance(by: .seconds(301))
            #expect(try await client.serviceToken().isEmpty == false)
        }
    }

    @Test("Limits are configurable; a success clears the user's count")
    func configurable() async throws {
        let lab = try ContentLab()
        var configuration = lab.configuration(clock: ManualHostClock(start: Date()))
        configuration.loginLimits = LoginLimits(perUser: 2, perAddress: 100, window: 60)
        try await lab.withServer(configuration) { client in
            #expect(try await client.token(Self.password(ContentLab.username, "wrong")).status == 400)
            #expect(try await client.passwordGrant().status == 200)
            #expect(try await client.token(Self.password(ContentLab.username, "wrong")).status == 400)
            #expect(try await client.token(Self.password(ContentLab.username, "wrong")).status == 400)
            let refused = try await client.passwordGrant()
            #expect(refused.status == 429)
            #expect(refused.header("retry-after") == "60")
        }
    }
}
