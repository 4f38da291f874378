import Foundation
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeFleet
import StoryBridgeTesting
import Testing

/// The fleet's HTTP tests' server: the hub on, the lab's users plus one admin.
extension ContentLab {
    /// The admin user.
    static let adminName = "olga"
    /// The admin's password.
    static let adminPassword = "olga's pass"

    /// The lab's configuration with the hub on and ``adminName`` an admin, on `clock` when given.
    func fleetConfiguration(clock: (any HostClock)? = nil) -> ContentServerConfiguration {
        var accounts = self.accounts()
        accounts.users.append(.init(username: Self.adminName, password: Self.adminPassword, fullname: "Olga Ivanova", admin: true))
        var configuration = self.configuration(accounts: accounts, clock: clock)
        configuration.fleet = true
        return configuration
    }

    /// A new lab whose hub has one device enrolled as `name` (in hub.sqlite, as `content-server
    /// device add` writes it): the lab, the hub's device store, the device and its token.
    static func enrolling(
        _ name: String, labels: [String: String] = [:]
    ) throws -> (lab: ContentLab, store: DeviceStore, device: Device, token: DeviceToken) {
        let lab = try ContentLab()
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (device, token) = try store.add(name: name, labels: labels)
        return (lab, store, device, token)
    }

    /// Runs `body` with a hub of this lab (``fleetConfiguration(clock:)``) on loopback, then stops it.
    func withFleetHub<T>(
        clock: (any HostClock)? = nil, _ body: (FleetHub, RunningContentServer, ContentClient) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "test.fleet-hub")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: fleetConfiguration(clock: clock), logger: logger)
        let hub = try #require(server.fleet)
        return try await server.whileRunning(waitingForPackages: false) { running in
            try await body(hub, running, ContentClient(baseURL: running.baseURL))
        }
    }
}

extension ContentClient {
    /// An access token of `username` from the password grant.
    func userToken(_ username: String, _ password: String) async throws -> String {
        let reply = try await token([
            "grant_type": "password", "client_id": ContentLab.appId, "client_secret": ContentLab.appSecret, "username": username,
            "password": password,
        ])
        guard reply.status == 200, let token = try reply.object()["access_token"] as? String else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "no token: \(reply.status) \(reply.text)"])
        }
        return token
    }
}

/// Waits (real time, to a 20 s deadline) until `condition` holds; records an issue naming `what` if it never does.
func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("not within 20 s: \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// The hub, kiosk side: a kiosk that connects and waits for its welcome.
extension FleetTestKiosk {
    /// A kiosk connected to the hub on `port` (challenge answered, welcome received), advertising `metricsURL` when given.
    static func connected(
        port: Int, token: String, key: HostKey = HostKey(), interval: Int = 30, metricsURL: String? = nil, schedule: JSONValue? = nil,
        screenshot: Screenshot? = nil
    ) async throws -> FleetTestKiosk {
        let kiosk = FleetTestKiosk(
            port: port, token: token, key: key, interval: interval, metricsURL: metricsURL, schedule: schedule, screenshot: screenshot)
        guard case .challenge = await kiosk.next(), case .welcome = await kiosk.next() else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "the hub did not welcome the kiosk"])
        }
        return kiosk
    }

    /// Sends `beat` and waits for its ack.
    func beat(_ beat: Beat) async throws {
        send(.beat(beat))
        guard await next() == .ack(Ack(seq: beat.seq)) else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "beat \(beat.seq) was not acknowledged"])
        }
    }
}

extension BrowserPage {
    /// Opens the fleet's login page at `baseURL` and submits its form as the admin
    /// (``ContentLab/adminName``); the caller waits for the page it lands on.
    func signInToFleet(at baseURL: String) async throws {
        try await navigate(to: "\(baseURL)/fleet/login")
        try await evaluate(
            """
            document.querySelector('input[name=username]').value = \(JSONValue.string(ContentLab.adminName).jsonString());
            document.querySelector('input[name=password]').value = \(JSONValue.string(ContentLab.adminPassword).jsonString());
            document.querySelector('form').submit(); true
            """)
    }
}
