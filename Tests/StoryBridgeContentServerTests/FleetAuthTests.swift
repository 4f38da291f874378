import Foundation
import GRDB
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Synchronization
import Testing

/// The fleet's admins, sessions and CSRF (docs/design/FLEET.md §5.4, §5.5): a real server on
/// loopback, raw HTTP so that redirects and cookies are seen as they are, a real hub.sqlite.
@Suite("Fleet hub: admins, sessions and CSRF")
struct FleetAuthTests {
    /// A device, a connected kiosk with a beat (so the fleet has something to leak), a scraper,
    /// and the hub; `body` gets the running server, the client, the kiosk's device and tokens.
    private func withFleet(
        clock: (any HostClock)? = nil,
        _ body: (RunningContentServer, ContentClient, Device, (kiosk: String, scraper: String, revoked: String)) async throws -> Void
    ) async throws {
        let (lab, store, device, kioskToken) = try ContentLab.enrolling("secret-kiosk-name", labels: ["site": "secret-site"])
        let (_, scraperToken) = try store.add(name: "secret-scraper-name", kind: .scraper)
        let (_, revokedToken) = try store.add(name: "secret-revoked-name")
        _ = try store.revoke("secret-revoked-name")
        try await lab.withFleetHub(clock: clock) { _, running, client in
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: kioskToken.text)
            kiosk.beat(1)
            #expect(await kiosk.next() == .ack(Ack(seq: 1)))
            try await body(running, client, device, (kioskToken.text, scraperToken.text, revokedToken.text))
            kiosk.disconnect()
            _ = try await kiosk.closeFrame()
        }
    }

    /// Whether `text` names the kiosk in any way.
    private func leaks(_ text: String, _ device: Device) -> Bool {
        text.contains("secret-") || text.contains(device.id)
    }

    @Test("the 401/403 matrix of every fleet route over a real socket; no 401 or 403 body names a kiosk")
    func matrix() async throws {
        try await withFleet { running, client, device, tokens in
            var admin = FleetBrowser(port: running.port)
            #expect(try await admin.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)
            let session = try #require(admin.cookies["sb_fleet"])
            let adminToken = try await client.userToken(ContentLab.adminName, ContentLab.adminPassword)
            let userToken = try await client.userToken(ContentLab.username, ContentLab.password)
            let serviceToken = try await client.serviceToken()
            let credentials: [(String, [String], api: Int, page: Int)] = [
                ("none", [], 401, 303),
                ("admin session", ["Cookie: sb_fleet=\(session)"], 200, 200),
                ("unknown session", ["Cookie: sb_fleet=\(AdminSessionsTestValue.unknown)"], 401, 303),
                ("admin token", ["Authorization: Bearer \(adminToken)"], 200, 303),
                ("user token", ["Authorization: Bearer \(userToken)"], 403, 303),
                ("service token", ["Authorization: Bearer \(serviceToken)"], 403, 303),
                ("kiosk token", ["Authorization: Bearer \(tokens.kiosk)"], 403, 303),
                ("scraper token", ["Authorization: Bearer \(tokens.scraper)"], 403, 303),
                ("revoked token", ["Authorization: Bearer \(tokens.revoked)"], 401, 303),
                ("forged token", ["Authorization: Bearer \(adminToken)x"], 401, 303),
                ("basic", ["Authorization: Basic b2xnYTpvbGdh"], 401, 303),
            ]
            let apiPaths = ["/v1/fleet", "/v1/fleet/kiosks/\(device.id)", "/v1/fleet/kiosks/\(device.id)/history?hours=1"]
            for (name, headers, api, page) in credentials {
                var browser = FleetBrowser(port: running.port)
                for path in apiPaths {
                    let reply = try await browser.send("GET", path, headers: headers)
                    #expect(reply.status == api, "\(name) GET \(path): \(reply.status) \(reply.text)")
                    if api != 200 {
                        #expect(!leaks(reply.text, device), "\(name) \(path): \(reply.text)")
                        #expect(reply.text.hasPrefix("{\"error\":"), "\(reply.text)")
                    }
                }
                if api != 200 {
                    // The dashboard's stream refuses as the JSON routes do (a granted one never ends: not read here).
                    let events = try await browser.send("GET", "/fleet/events", headers: headers)
                    #expect(events.status == api, "\(name) GET /fleet/events: \(events.status)")
                    #expect(!leaks(events.text, device))
                }
                let script = try await browser.send("GET", "/fleet/static/fleet.js", headers: headers)
                #expect(script.status == 200 && script.text.contains("EventSource") && !leaks(script.text, device))
                let fleet = try await browser.send("GET", "/fleet", headers: headers)
                #expect(fleet.status == page, "\(name) GET /fleet: \(fleet.status)")
                if page == 303 {
                    #expect(fleet.headers["location"] == "/fleet/login")
                    #expect(!leaks(fleet.text, device))
                } else {
                    #expect(fleet.text.contains("secret-kiosk-name"), "the admin's page lists the kiosk")
                    #expect(fleet.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
                }
                // Logout without a session of its own (or without its CSRF token): 403.
                if name != "admin session" {
                    let logout = try await browser.send("POST", "/fleet/logout", form: [:], headers: headers)
                    #expect(logout.status == 403, "\(name) POST /fleet/logout: \(logout.status)")
                    #expect(!leaks(logout.text, device))
                }
            }
            // The login page names no kiosk; wrong credentials 401, a user who is not admin 403, both with the form again.
            var stranger = FleetBrowser(port: running.port)
            let form = try await stranger.send("GET", "/fleet/login")
            #expect(form.status == 200 && form.text.contains("name=\"password\"") && !leaks(form.text, device))
            let wrong = try await stranger.login(ContentLab.adminName, "not the password")
            #expect(wrong.status == 401 && wrong.text.contains("wrong user name or password") && !leaks(wrong.text, device))
            #expect(stranger.cookies["sb_fleet"] == nil)
            let notAdmin = try await stranger.login(ContentLab.username, ContentLab.password)
            #expect(notAdmin.status == 403 && notAdmin.text.contains("this user may not see the fleet") && !leaks(notAdmin.text, device))
            #expect(stranger.cookies["sb_fleet"] == nil)
            let cookie = try #require(admin.cookies["sb_fleet"])
            #expect(cookie.count == 43, "32 random bytes, base64url")
        }
    }

    @Test("CSRF: a login or logout with the token missing or wrong, or from a foreign Origin, is refused with 403")
    func csrf() async throws {
        try await withFleet { running, _, device, _ in
            var browser = FleetBrowser(port: running.port)
            _ = try await browser.send("GET", "/fleet/login")
            let token = try #require(browser.cookies["sb_fleet_login"])
            let credentials = ["username": ContentLab.adminName, "password": ContentLab.adminPassword]
            let own = "Origin: http://127.0.0.1:\(running.port)"
            let attempts: [(String, [String: String], [String])] = [
                ("no token", credentials, [own]),
                ("a wrong token", credentials.merging(["csrf": AdminSessionsTestValue.unknown]) { $1 }, [own]),
                ("a foreign Origin", credentials.merging(["csrf": token]) { $1 }, ["Origin: http://evil.example"]),
                ("Origin null", credentials.merging(["csrf": token]) { $1 }, ["Origin: null"]),
            ]
            for (what, form, headers) in attempts {
                browser.cookies["sb_fleet_login"] = token
                let reply = try await browser.send("POST", "/fleet/login", form: form, headers: headers)
                #expect(reply.status == 403, "login with \(what): \(reply.status)")
                #expect(browser.cookies["sb_fleet"] == nil, "login with \(what) made a session")
            }
            var noCookie = FleetBrowser(port: running.port)
            let withoutCookie = try await noCookie.send("POST", "/fleet/login", form: credentials.merging(["csrf": token]) { $1 })
            #expect(withoutCookie.status == 403, "a token without its cookie")

            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword, headers: [own]).status == 303)
            let page = try await browser.send("GET", "/fleet")
            let csrf = try #require(FleetBrowser.csrf(in: page.text))
            for (what, form, headers) in [
                ("no token", [String: String](), [own]),
                ("a wrong token", ["csrf": AdminSessionsTestValue.unknown], [own]),
                ("a wrong header token", [:], ["X-CSRF-Token: \(AdminSessionsTestValue.unknown)"]),
                ("a foreign Origin", ["csrf": csrf], ["Origin: http://evil.example"]),
            ] {
                let reply = try await browser.send("POST", "/fleet/logout", form: form, headers: headers)
                #expect(reply.status == 403, "logout with \(what): \(reply.status) \(reply.text)")
                #expect(!leaks(reply.text, device))
                #expect(try await browser.send("GET", "/v1/fleet").status == 200, "the session lives on after \(what)")
            }
            // The header form (what fleet.js sends) with the server's own Origin: the session ends.
            let session = try #require(browser.cookies["sb_fleet"])
            let logout = try await browser.send("POST", "/fleet/logout", form: [:], headers: ["X-CSRF-Token: \(csrf)", own])
            #expect(logout.status == 303 && logout.headers["location"] == "/fleet/login")
            #expect(browser.cookies["sb_fleet"] == nil)
            browser.cookies["sb_fleet"] = session
            #expect(try await browser.send("GET", "/v1/fleet").status == 401, "an ended session is refused")
        }
    }

    @Test("sessions on the injected clock: 2 h without a request ends one, 12 h after the login too; they survive a restart")
    func expiry() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Date())
        var cookie = ""
        try await lab.withFleetHub(clock: clock) { _, running, _ in
            var browser = FleetBrowser(port: running.port)
            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)
            cookie = try #require(browser.cookies["sb_fleet"])
            #expect(try await browser.send("GET", "/v1/fleet").status == 200)
        }
        // Another hub on the same folder knows the session.
        try await lab.withFleetHub(clock: clock) { _, running, _ in
            var browser = FleetBrowser(port: running.port, cookies: ["sb_fleet": cookie])
            let reply1 = try await browser.send("GET", "/v1/fleet")
            #expect(reply1.status == 200, "the session survives a restart")
            // Used every 1 h 59 min it lives on, until 12 h after the login.
            for span in 1...6 {
                clock.advance(by: .seconds(2 * 3600 - 60))
                let reply2 = try await browser.send("GET", "/v1/fleet")
                #expect(reply2.status == 200, "after \(span) idle spans")
            }
            clock.advance(by: .seconds(2 * 3600 - 60))
            let reply3 = try await browser.send("GET", "/v1/fleet")
            #expect(reply3.status == 401, "12 h after the login")
            let reply4 = try await browser.send("GET", "/fleet")
            #expect(reply4.status == 303)

            let reply5 = try await browser.login(ContentLab.adminName, ContentLab.adminPassword)
            #expect(reply5.status == 303)
            clock.advance(by: .seconds(2 * 3600 - 1))
            let reply6 = try await browser.send("GET", "/v1/fleet")
            #expect(reply6.status == 200)
            clock.advance(by: .seconds(2 * 3600 + 1))
            let reply7 = try await browser.send("GET", "/v1/fleet")
            #expect(reply7.status == 401, "2 h without a request")
        }
    }

    @Test("the dashboard's stream says logout once its session has ended (injected clock)")
    func streamLogout() async throws {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Date())
        try await lab.withFleetHub(clock: clock) { _, running, _ in
            var browser = FleetBrowser(port: running.port)
            let login = try await browser.login(ContentLab.adminName, ContentLab.adminPassword)
            #expect(login.status == 303)
            let session = try #require(browser.cookies["sb_fleet"])
            let sleeping = clock.sleepers
            let snapshot = Flag()
            let request = "GET /fleet/events HTTP/1.1\r\nHost: 127.0.0.1:\(running.port)\r\nCookie: sb_fleet=\(session)\r\n\r\n"
            let stream = Task {
                try await RawHTTP.exchange(port: running.port, request, timeout: 30) { response in
                    if response.text.contains("event: snapshot") { snapshot.set() }
                    return response.text.contains("event: logout")
                }
            }
            try await eventually("the snapshot") { snapshot.isSet }
            #expect(await clock.waitForSleepers(sleeping + 1), "the stream waits for its next look")
            clock.advance(by: .seconds(2 * 3600 + 1))
            let response = try await stream.value
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(response.text.contains("event: logout"), "\(response.text.suffix(200))")
        }
    }

    @Test(
        "failed logins go through the login throttle: the sixth attempt for a user answers 429 with Retry-After, even with the right password"
    )
    func throttle() async throws {
        try await withFleet { running, _, _, _ in
            var browser = FleetBrowser(port: running.port)
            for attempt in 1...5 {
                #expect(try await browser.login(ContentLab.adminName, "wrong \(attempt)").status == 401)
            }
            let limited = try await browser.login(ContentLab.adminName, ContentLab.adminPassword)
            #expect(limited.status == 429, "\(limited.status)")
            #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 > 0)
            #expect(browser.cookies["sb_fleet"] == nil)
        }
    }

    @Test(
        "passwordBcrypt: an admin with a bcrypt hash logs in by form and by the password grant; hash-password prints a hash that verifies")
    func bcrypt() async throws {
        let lab = try ContentLab()
        var accounts = lab.accounts()
        accounts.users.append(
            .init(username: "hashed", password: "", fullname: "Hashed Admin", admin: true))
        accounts.users[accounts.users.count - 1].passwordBcrypt = AdminPassword.hash("right horse", cost: 4)
        try accounts.validate()
        var configuration = lab.configuration(accounts: accounts)
        configuration.fleet = true
        try await lab.withServer(configuration) { client in
            let token = try await client.userToken("hashed", "right horse")
            #expect(try await client.get("/v1/fleet", token: token).status == 200)
            let wrong = try await client.token([
                "grant_type": "password", "client_id": ContentLab.appId, "client_secret": ContentLab.appSecret, "username": "hashed",
                "password": "wrong horse",
            ])
            #expect(wrong.status == 400)
            let port = try #require(URL(string: client.baseURL)?.port)
            var browser = FleetBrowser(port: port)
            #expect(try await browser.login("hashed", "right horse").status == 303)
        }
        var both = accounts
        both.users[both.users.count - 1].password = "clear"
        #expect(throws: ContentServerSetupError.self) { try both.validate() }

        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(), arguments: ["content-server", "hash-password", "--password-stdin", "--cost", "10"],
            input: .pipe(input), output: .pipe(output), error: .pipe(errors))
        input.fileHandleForWriting.write(Data("correct horse\n".utf8))
        try input.fileHandleForWriting.close()
        let (out, err) = await readUntilExit(process, output: output, errors: errors)
        #expect(process.terminationStatus == 0, "\(String(decoding: err, as: UTF8.self))")
        let hash = String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash.hasPrefix("$2b$10$") && AdminPassword.isHash(hash), "\(hash)")
        #expect(AdminPassword.verify("correct horse", hash: hash))
        #expect(!AdminPassword.verify("correct horsE", hash: hash))
    }
}

/// A flag set from a `@Sendable` closure and read by the test.
final class Flag: Sendable {
    private let value = Mutex(false)

    /// Sets the flag.
    func set() { value.withLock { $0 = true } }

    /// Whether it is set.
    var isSet: Bool { value.withLock { $0 } }
}

/// Values no server made.
enum AdminSessionsTestValue {
    /// 43 characters of base64url that are no session's.
    static let unknown = String(repeating: "A", count: 43)
}
