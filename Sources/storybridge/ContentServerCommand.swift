import ArgumentParser
import Foundation
import Logging
import StoryBridge
import StoryBridgeContentServer

struct ContentServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content-server",
        abstract: "Serve the library as a StoryCLM-compatible content API (tokens, clients, presentations, packages).",
        discussion: """
            A development stand-in for the StoryCLM auth and content services, for kiosks, CI and \
            `storybridge sync`. It serves POST /connect/token (client_credentials, password, \
            refresh_token grants; HS256 JWTs), GET /v1/clients, /v1/clients/{id}, /v1/presentations/{id}, \
            /v1/contentpackages/{id}, /v1/mediafiles/{id} and /v1/slides/{id} (with or without a \
            trailing slash; Bearer token required), and each package as a zip behind a signed, \
            expiring `sas` link under /blobs/ (Range, If-Range, strong ETag). The same URL is the auth \
            and the API base. Packages are built in the background at start-up and within a second of \
            an install, never inside a request; a presentation whose package is still being built \
            answers 503 with Retry-After: 1.

            With --config FILE, clients, credentials and users come from a JSON file (see docs/CONTENT-SERVER.md). \
            Without it, one client holds every installed presentation and the credentials come from \
            --client-id/--client-secret (the client_credentials grant) and --app-id/--app-secret with \
            --user (the password grant). Presentations installed later (storybridge install --data-dir \
            the same folder) show at once, with their new revision.

            Only requests that name this server in Host are answered (else 421; add names with \
            --allowed-host); sas links come from --public-url or the server's own name, never from a \
            request. Failed logins are limited (429 with Retry-After). --tls-cert/--tls-key serve HTTPS. \
            Refresh tokens rotate. See docs/CONTENT-API.md for what the server imitates and what not.

            `content-server keys` makes and manages the keys that sign packages' manifests; signing is \
            on once `keys init` has run (see docs/CONTENT-API.md, "Manifests and keys").

            `content-server device add|list|revoke` manages the fleet's device tokens (see \
            docs/CONTENT-SERVER.md, "Fleet devices"); `content-server hash-password` prints a bcrypt \
            hash for a fleet admin's "passwordBcrypt".
            """,
        subcommands: [ContentServerKeysCommand.self, ContentServerDeviceCommand.self, ContentServerHashPasswordCommand.self])

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free port.")
    var port = 8095

    @Option(help: "JSON file with clients, services, apps and users (see docs/CONTENT-SERVER.md).")
    var config: String?

    @Option(help: "Without --config: a service client id accepted by the client_credentials grant.")
    var clientId: String?

    @Option(help: "Without --config: that service's secret.")
    var clientSecret: String?

    @Option(help: "Without --config: the app's client id for the password and refresh_token grants.")
    var appId: String?

    @Option(help: "Without --config: the app's client secret.")
    var appSecret: String?

    @Option(
        name: .customLong("user"),
        help: "Without --config: a user for the password grant as USERNAME:PASSWORD[:FULL NAME] (repeatable).")
    var users: [String] = []

    @Option(
        name: .customLong("admin"),
        help: ArgumentHelp(
            "Without --config: the --user USERNAME may see the fleet (repeatable).",
            discussion: "With --config, mark users \"admin\": true there.", valueName: "username"))
    var admins: [String] = []

    @Option(help: "Without --config: the StoryCLM client id of the one client.")
    var clientNumber = 1

    @Option(help: "Without --config: the name of the one client.")
    var clientName = "Library"

    @Option(
        name: [.customLong("token-lifetime"), .customLong("test-token-lifetime")],
        help: "Access token lifetime in seconds (expires_in); tests use a few seconds.")
    var tokenLifetime = 3600

    @Option(help: "A file whose bytes sign tokens and links (default: content-server/signing-secret in the data folder, created once).")
    var signingSecretFile: String?

    @Option(
        help: ArgumentHelp(
            "The base URL sas links start with, http(s)://name[:port] (default: this server's --host and port).",
            discussion: "Links are never built from a request's Host header. The URL's host is one of the names the server answers to."
        ))
    var publicURL: String?

    @Option(
        help: ArgumentHelp(
            "The form of the sas links: storybridge (?exp=…&sig=hex) or azure (?sv=…&sr=b&sig=…&st=…&se=…&sp=r, as the real service's).",
            valueName: "storybridge|azure"))
    var blobLinks = BlobLinkStyle.storybridge

    @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key); links then use https.")
    var tlsCert: String?

    @Option(help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A name this server answers to besides 127.0.0.1, localhost, [::1] and the bound address (repeatable; '*.example.lan' for sub-domains).",
            discussion:
                "Requests whose Host header names anything else are refused with 421 (a defence against DNS rebinding), as in serve. With --host 0.0.0.0 the first name is also the one links use, unless --public-url is given."
        ))
    var allowedHosts: [String] = []

    @Flag(
        help:
            "Packages leave out the presentations' media files (mediafiles/…); clients fetch each from /v1/mediafiles/{id} and its sas link."
    )
    var mediaOutsidePackages = false

    @Option(
        help: ArgumentHelp(
            "With `keys init` done: how long each signed manifest is good for, in days (1 to 365).", valueName: "days"))
    var manifestLifetime = 30

    @Flag(
        help: ArgumentHelp(
            "Turn on the fleet hub: kiosks running `serve --fleet` connect to /v1/fleet/connect with a device token.",
            discussion:
                "Devices and their tokens: `content-server device add|list|revoke`. The hub keeps content-server/hub.sqlite in the data folder (docs/CONTENT-SERVER.md, \"Fleet hub\")."
        ))
    var fleet = false

    @Option(
        help: ArgumentHelp(
            "Without --config: post every event (presentations created, updated, deleted; with --fleet, kiosks offline, online, sync failed, queue over its limit) to this URL.",
            discussion:
                "Signed with HMAC-SHA256 (X-StoryBridge-Signature) with the secret of --webhook-secret-file; retried with back-off. With --config, list them under \"webhooks\" (docs/CONTENT-SERVER.md, \"Webhooks\").",
            valueName: "URL"))
    var webhook: String?

    @Option(
        help: ArgumentHelp("The file holding --webhook's secret (at least 16 bytes; a trailing newline is ignored).", valueName: "path"))
    var webhookSecretFile: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    @OptionGroup(title: "Library")
    var library: LibraryOptions

    @OptionGroup(title: "Test options (make the server misbehave on purpose)")
    var test: ContentServerTestOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be positive") }
        guard (1...365).contains(manifestLifetime) else { throw ValidationError("--manifest-lifetime must be between 1 and 365 days") }
        try test.validate()
        if config != nil, clientId != nil || clientSecret != nil || appId != nil || appSecret != nil || !users.isEmpty {
            throw ValidationError("--config already names the credentials; drop --client-id/--client-secret/--app-id/--app-secret/--user")
        }
        if config != nil, !admins.isEmpty {
            throw ValidationError("--admin is for --user; with --config, mark the users \"admin\": true in the file")
        }
        if config != nil, webhook != nil || webhookSecretFile != nil {
            throw ValidationError("--webhook is for use without --config; with --config, list the webhooks under \"webhooks\" in the file")
        }
        if webhook != nil, webhookSecretFile == nil {
            throw ValidationError("--webhook needs --webhook-secret-file FILE (the secret its requests are signed with)")
        }
        if webhook == nil, webhookSecretFile != nil { throw ValidationError("--webhook-secret-file goes with --webhook URL") }
        if (clientId == nil) != (clientSecret == nil) { throw ValidationError("--client-id and --client-secret go together") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if (appId == nil) != (appSecret == nil) { throw ValidationError("--app-id and --app-secret go together") }
        if !users.isEmpty, appId == nil { throw ValidationError("--user needs --app-id and --app-secret (the password grant)") }
    }

    /// The credentials check, made when the server is to run rather than in `validate()`, which
    /// argument-parser also calls on the way to a subcommand (`content-server keys …`).
    private func validateCredentials() throws {
        if config == nil, clientId == nil, appId == nil {
            throw ValidationError("give --config FILE, or --client-id/--client-secret, or --app-id/--app-secret with --user")
        }
    }

    /// The webhooks of `--config` or of `--webhook` (nil without either); a usage error names what is wrong.
    func webhooks() throws -> WebhookConfiguration? {
        do throws(WebhookConfigurationError) {
            if let config { return try WebhookConfiguration.load(configFile: URL(fileURLWithPath: config)) }
            guard let webhook else { return nil }
            let (endpoint, warning) = try WebhookConfiguration.endpoint(
                url: webhook, secretFile: webhookSecretFile, secret: nil, events: nil, place: "--webhook")
            var configuration = WebhookConfiguration(endpoints: [endpoint])
            configuration.warnings = warning.map { [$0] } ?? []
            return configuration
        } catch {
            throw ValidationError(error.description)
        }
    }

    func accounts() throws -> ContentServerAccounts {
        if let config { return try ContentServerAccounts.load(from: URL(fileURLWithPath: config)) }
        let parsedUsers = try users.map { text -> ContentServerAccounts.User in
            let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--user '\(text)' is not USERNAME:PASSWORD[:FULL NAME]")
            }
            return .init(
                username: parts[0], password: parts[1], fullname: parts.count > 2 ? parts[2] : parts[0],
                admin: admins.contains(parts[0]) ? true : nil)
        }
        if let unknown = admins.first(where: { name in !parsedUsers.contains { $0.username == name } }) {
            throw ValidationError("--admin \(unknown) names no --user")
        }
        let accounts = ContentServerAccounts.wholeLibrary(
            clientId: clientNumber, clientName: clientName,
            services: clientId.map { [.init(clientId: $0, clientSecret: clientSecret ?? "")] } ?? [],
            apps: appId.map { [.init(clientId: $0, clientSecret: appSecret ?? "")] } ?? [], users: parsedUsers)
        try accounts.validate(file: "the options")
        return accounts
    }

    func run() async throws {
        try validateCredentials()
        var logger = Logger(label: "storybridge.content-server")
        logger.logLevel = logLevel
        let secret: Data?
        if let signingSecretFile {
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: signingSecretFile)), bytes.count >= 16 else {
                throw ValidationError("--signing-secret-file \(signingSecretFile) must be readable and hold at least 16 bytes")
            }
            secret = bytes
        } else {
            secret = nil
        }
        var setup = ContentServerConfiguration(
            host: host, port: port, dataDirectory: library.directory, accounts: try accounts(), signingSecret: secret,
            accessTokenLifetime: tokenLifetime, linkLifetime: test.linkLifetime, publicBaseURL: publicURL,
            faults: test.faults)
        setup.mediaFilesOutsidePackages = mediaOutsidePackages
        setup.manifestLifetime = TimeInterval(manifestLifetime) * 86_400
        setup.allowedHosts = allowedHosts
        setup.blobLinks = blobLinks
        setup.fleet = fleet
        setup.webhooks = try webhooks()
        for warning in setup.webhooks?.warnings ?? [] { Terminal.warn(warning) }
        if let hooks = setup.webhooks, !fleet, hooks.endpoints.contains(where: { $0.events.contains(where: \.isKioskEvent) }) {
            Terminal.say("Webhooks: kiosk events need --fleet; only presentation events are sent.")
        }
        if fleet, !(host == "localhost" || host == "::1" || host.hasPrefix("127.")), tlsCert == nil,
            !(publicURL?.lowercased().hasPrefix("https://") ?? false)
        {
            Terminal.warn(
                "warning: --fleet on \(host) without TLS: device tokens, passwords and session cookies cross the network in clear; give --tls-cert/--tls-key or an https --public-url"
            )
        }
        if let tlsCert, let tlsKey {
            setup.tls = TLSFiles(certificateChain: URL(fileURLWithPath: tlsCert), privateKey: URL(fileURLWithPath: tlsKey))
        }
        setup.onPackageBuilt = { progress in
            let outcome = progress.failed ? "FAILED (see the log)" : "built"
            Terminal.say("Packages: \(progress.finished) of \(progress.total) done; presentation \(progress.presentationId) \(outcome)")
        }
        let configuration = setup
        let server: ContentServer
        do {
            server = try ContentServer(configuration: configuration, logger: logger)
        } catch let error as ContentServerSetupError {
            throw ValidationError(error.description)
        }
        let installed = (try? server.library.entries().count) ?? 0
        let faults = test.summary
        try await server.runUntilSignalled { [host, scheme = server.scheme] port in
            Terminal.say("storybridge content-server listening on \(scheme)://\(host):\(port)/ (auth and API base URL)")
            Terminal.say("Serving \(installed) installed presentation(s) from \(configuration.dataDirectory.root.path)")
            Terminal.say("Packages are built in the background; until one is, its presentation answers 503 with Retry-After: 1.")
            if configuration.mediaFilesOutsidePackages {
                Terminal.say("Media files are left out of the packages and served from /v1/mediafiles.")
            }
            if ContentTrustFolder(dataDirectory: configuration.dataDirectory).signs {
                Terminal.say("Signing a manifest of each package (content-server/trust/keys.json).")
            }
            if configuration.fleet {
                Terminal.say(
                    "Fleet hub on: kiosks connect to \(scheme)://\(host):\(port)/v1/fleet/connect (content-server device add NAME); admins sign in at \(scheme)://\(host):\(port)/fleet."
                )
            }
            if let hooks = configuration.webhooks {
                Terminal.say("Webhooks: \(hooks.endpoints.count) endpoint(s); deliveries are queued in content-server/hub.sqlite.")
            }
            if !faults.isEmpty { Terminal.say("Test options on: \(faults)") }
            Terminal.say("Press Ctrl-C to stop.")
        }
    }
}

/// The `--test-…` options: faults a client's tests need.
struct ContentServerTestOptions: ParsableArguments {
    @Option(help: "Blob responses close the connection after N body bytes (a dropped download).")
    var testDropAfterBytes: Int?

    @Option(help: "Only the first N blob responses are cut by --test-drop-after-bytes (default: all).")
    var testDropTimes: Int?

    @Option(help: "The first N content and blob requests (see --test-fail-on) answer --test-fail-status with Retry-After.")
    var testFailFirst = 0

    @Option(help: "The status of those failures: 503 (default), 500, 502, 504 or 429.")
    var testFailStatus = 503

    @Option(help: "Their Retry-After in seconds; 0 sends none.")
    var testRetryAfter = 1

    @Option(help: "Which requests --test-fail-first counts: content (the /v1 routes), blobs (the sas links) or all.")
    var testFailOn = FaultScope.all

    @Option(help: "sas links expire after this many seconds.")
    var testLinkLifetime = 3600

    @Flag(help: "Refresh grants answer 400 invalid_grant.")
    var testRejectRefresh = false

    @Option(name: .customLong("test-no-content-presentation"), help: "GET /v1/presentations/ID answers 204 No Content (repeatable).")
    var testNoContentPresentations: [Int] = []

    @Option(name: .customLong("test-no-content-package"), help: "GET /v1/contentpackages/ID answers 204 No Content (repeatable).")
    var testNoContentPackages: [Int] = []

    @Option(
        name: .customLong("test-forbid-presentation"),
        help: "GET /v1/presentations/ID and /v1/contentpackages/ID answer 403 (repeatable).")
    var testForbiddenPresentations: [Int] = []

    @Option(help: "The first N GET /v1/clients answer an empty list.")
    var testEmptyClients = 0

    @Option(
        name: .customLong("test-republish"),
        help:
            "Once the start-up builds are done, publish presentation ID's package again: a new package revision under the same presentation revision (repeatable)."
    )
    var testRepublish: [Int] = []

    @Option(
        name: .customLong("test-serve-manifest"),
        help:
            "The manifest route answers FILE's bytes as they are, unchecked, for every package (a proxy replaying or forging a manifest).",
        completion: .file())
    var testServeManifest: String?

    func validate() throws {
        if let testDropAfterBytes, testDropAfterBytes < 0 { throw ValidationError("--test-drop-after-bytes must be 0 or more") }
        if let testDropTimes, testDropTimes < 1 { throw ValidationError("--test-drop-times must be 1 or more") }
        guard testFailFirst >= 0 else { throw ValidationError("--test-fail-first must be 0 or more") }
        guard TestFaults.failStatuses.contains(testFailStatus) else {
            throw ValidationError(
                "--test-fail-status must be one of \(TestFaults.failStatuses.sorted().map(String.init).joined(separator: ", "))")
        }
        guard testRetryAfter >= 0 else { throw ValidationError("--test-retry-after must be 0 or more") }
        guard testLinkLifetime > 0 else { throw ValidationError("--test-link-lifetime must be positive") }
        guard testEmptyClients >= 0 else { throw ValidationError("--test-empty-clients must be 0 or more") }
        let ids = testNoContentPresentations + testNoContentPackages + testForbiddenPresentations + testRepublish
        if let bad = ids.first(where: { $0 <= 0 }) { throw ValidationError("presentation id \(bad) is not a positive integer") }
    }

    var linkLifetime: Int { testLinkLifetime }

    var faults: TestFaults {
        TestFaults(
            dropAfterBytes: testDropAfterBytes, dropTimes: testDropTimes, failFirst: testFailFirst, failStatus: testFailStatus,
            retryAfter: testRetryAfter > 0 ? testRetryAfter : nil, failOn: testFailOn, rejectRefresh: testRejectRefresh,
            noContentPresentations: Set(testNoContentPresentations), noContentPackages: Set(testNoContentPackages),
            forbiddenPresentations: Set(testForbiddenPresentations), emptyClientLists: testEmptyClients,
            republish: testRepublish, serveManifest: testServeManifest.map { URL(fileURLWithPath: $0) })
    }

    /// What is switched on, for the start-up lines.
    var summary: String {
        var parts: [String] = []
        if let testDropAfterBytes {
            parts.append("drop blob responses after \(testDropAfterBytes) bytes" + (testDropTimes.map { " (first \($0))" } ?? ""))
        }
        if testFailFirst > 0 {
            let scope = testFailOn == .all ? "" : " \(testFailOn.rawValue)"
            let wait = testRetryAfter > 0 ? " (Retry-After: \(testRetryAfter))" : " (no Retry-After)"
            parts.append("\(testFailStatus) to the first \(testFailFirst)\(scope) requests\(wait)")
        }
        if testLinkLifetime != 3600 { parts.append("links expire after \(testLinkLifetime) s") }
        if testRejectRefresh { parts.append("refresh refused") }
        func list(_ ids: [Int]) -> String { ids.map(String.init).joined(separator: ", ") }
        if !testNoContentPresentations.isEmpty { parts.append("204 for presentation(s) \(list(testNoContentPresentations))") }
        if !testNoContentPackages.isEmpty { parts.append("204 for the package(s) of \(list(testNoContentPackages))") }
        if !testForbiddenPresentations.isEmpty { parts.append("403 for presentation(s) \(list(testForbiddenPresentations))") }
        if testEmptyClients > 0 { parts.append("an empty client list for the first \(testEmptyClients) request(s)") }
        if !testRepublish.isEmpty { parts.append("package(s) of \(list(testRepublish)) republished after start-up") }
        if let testServeManifest { parts.append("every manifest answered with \(testServeManifest), unchecked") }
        return parts.joined(separator: "; ")
    }
}

extension FaultScope: ExpressibleByArgument {}

extension BlobLinkStyle: ExpressibleByArgument {}
