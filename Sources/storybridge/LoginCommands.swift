import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeSync

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to a StoryCLM-compatible content service (for storybridge sync).",
        discussion: """
            As a service: --client-id ID --client-secret SECRET (the client_credentials grant). As a \
            user: --username NAME --client-id APPID --client-secret APPSECRET (the password grant, \
            with the application's id and secret); the password is asked on the terminal without \
            echo, or read from the first line of standard input with --password-stdin. It is never a \
            command-line option, and never stored.

            The session (access token, refresh token, expiry, the client id and secret that renew it) \
            is kept in DATA-DIR/sync-session.json, readable by its owner only (mode 0600). The access \
            token is renewed before it expires and when the API answers 401.

            \(SyncExitStatus.helpText)
            """)

    @Option(help: "The auth service's base URL (the token endpoint is URL/connect/token).")
    var auth: String

    @Option(help: "The content API's base URL (e.g. https://api.storyclm.com).")
    var api: String

    @Option(help: "The service's client id, or with --username the application's id.")
    var clientId: String

    @Option(help: "The service's client secret, or with --username the application's secret.")
    var clientSecret: String

    @Option(help: "Log in as this user (password grant).")
    var username: String?

    @Flag(help: "Read the password from the first line of standard input instead of asking.")
    var passwordStdin = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        for (name, value) in [("--auth", auth), ("--api", api)] {
            guard let url = URL(string: value), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("\(name) must be an http(s) URL, got '\(value)'")
            }
        }
        if passwordStdin && username == nil { throw ValidationError("--password-stdin needs --username") }
    }

    func run() async throws {
        let grant: TokenGrant
        if let username {
            let password: String
            do {
                password = passwordStdin ? try PasswordReader.fromStandardInput() : try PasswordReader.prompt("Password for \(username): ")
            } catch {
                throw CommandFailure(ErrorWording.describe(error), status: ExitCode.validationFailure.rawValue)
            }
            grant = .password(clientId: clientId, clientSecret: clientSecret, username: username, password: password)
        } else {
            grant = .clientCredentials(clientId: clientId, clientSecret: clientSecret)
        }
        do {
            let session = try await SyncLogin.login(
                directory: library.directory, authURL: URL(string: auth)!, apiURL: URL(string: api)!, grant: grant)
            Terminal.say(
                "logged in to \(api) as \(session.who); the session is kept in \(SessionStore(folder: library.directory.root).file.path)")
        } catch {
            throw SyncExitStatus.fail("login", error)
        }
    }
}

struct LogoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget the content service session (synced content stays).")

    @OptionGroup var library: LibraryOptions

    func run() throws {
        do {
            let had = try SyncLogin.logout(directory: library.directory)
            Terminal.say(had ? "logged out" : "not logged in")
        } catch {
            throw SyncExitStatus.fail("logout", error)
        }
    }
}
