import Crypto
import Foundation

/// Who may ask the content server for tokens, and which clients and presentations it shows.
///
/// Read from the `--config` JSON file (see ``ContentServerAccounts/load(from:)``), or built by the
/// CLI from its options when there is no file.
package struct ContentServerAccounts: Sendable, Hashable, Codable {
    /// A StoryCLM client: a named group of presentations.
    package struct Client: Sendable, Hashable, Codable {
        package var id: Int
        package var name: String
        /// The presentations this client holds, with their flags.
        package var presentations: [PresentationEntry]

        package init(id: Int, name: String, presentations: [PresentationEntry]) {
            self.id = id
            self.name = name
            self.presentations = presentations
        }
    }

    /// One presentation of a client and the per-presentation flags StoryCLM carries.
    ///
    /// In the file, an entry is either a bare id (`3`) or an object (`{"id": 3, "debug": true}`);
    /// missing flags take their defaults.
    package struct PresentationEntry: Sendable, Hashable, Codable {
        package var id: Int
        package var skip = false
        package var debug = false
        package var lockout = false
        package var visibility = true
        package var needConfirmation = false
        package var mapEnabled = false

        package init(
            id: Int, skip: Bool = false, debug: Bool = false, lockout: Bool = false, visibility: Bool = true,
            needConfirmation: Bool = false, mapEnabled: Bool = false
        ) {
            self.id = id
            self.skip = skip
            self.debug = debug
            self.lockout = lockout
            self.visibility = visibility
            self.needConfirmation = needConfirmation
            self.mapEnabled = mapEnabled
        }

        enum CodingKeys: String, CodingKey {
            case id, skip, debug, lockout, visibility, needConfirmation, mapEnabled
        }

        package init(from decoder: any Decoder) throws {
            if let bare = try? decoder.singleValueContainer().decode(Int.self) {
                self.init(id: bare)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(id: try container.decode(Int.self, forKey: .id))
            skip = try container.decodeIfPresent(Bool.self, forKey: .skip) ?? skip
            debug = try container.decodeIfPresent(Bool.self, forKey: .debug) ?? debug
            lockout = try container.decodeIfPresent(Bool.self, forKey: .lockout) ?? lockout
            visibility = try container.decodeIfPresent(Bool.self, forKey: .visibility) ?? visibility
            needConfirmation = try container.decodeIfPresent(Bool.self, forKey: .needConfirmation) ?? needConfirmation
            mapEnabled = try container.decodeIfPresent(Bool.self, forKey: .mapEnabled) ?? mapEnabled
        }
    }

    /// A client id and secret pair: a service (for `client_credentials`) or an app (for `password`
    /// and `refresh_token`).
    package struct Credentials: Sendable, Hashable, Codable {
        package var clientId: String
        package var clientSecret: String
        /// Services only: the StoryCLM clients a service token may see (`nil`: every client).
        package var clients: [Int]?

        package init(clientId: String, clientSecret: String, clients: [Int]? = nil) {
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.clients = clients
        }
    }

    /// A person who logs in with the password grant.
    package struct User: Sendable, Hashable, Codable {
        package var username: String
        /// The password in clear; empty when the user has ``passwordBcrypt`` instead.
        package var password: String
        /// A bcrypt hash of the password (`content-server hash-password`), instead of ``password``.
        package var passwordBcrypt: String?
        package var fullname: String
        /// The user's id (a GUID, the tokens' `sub`); when absent one is derived from the user
        /// name, the same on every start.
        package var id: String?
        /// The StoryCLM clients the user's tokens may see (`nil`: every client).
        package var clients: [Int]?
        /// The user's role in those clients (`users[].role` on the wire); 0 when absent.
        package var role: Int?
        /// Whether the user may see the fleet (`"admin": true`; docs/design/FLEET.md §5.4).
        package var admin: Bool?

        package init(
            username: String, password: String, fullname: String, id: String? = nil, clients: [Int]? = nil, role: Int? = nil,
            admin: Bool? = nil
        ) {
            self.username = username
            self.password = password
            self.fullname = fullname
            self.id = id
            self.clients = clients
            self.role = role
            self.admin = admin
        }

        /// Whether the user is a fleet admin.
        var isAdmin: Bool { admin ?? false }

        enum CodingKeys: String, CodingKey {
            case username, password, passwordBcrypt, fullname, id, clients, role, admin
        }

        /// Reads a user; `password` may be left out when `passwordBcrypt` is given
        /// (``ContentServerAccounts/validate(file:)`` asks for exactly one of them).
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                username: try container.decode(String.self, forKey: .username),
                password: try container.decodeIfPresent(String.self, forKey: .password) ?? "",
                fullname: try container.decode(String.self, forKey: .fullname),
                id: try container.decodeIfPresent(String.self, forKey: .id),
                clients: try container.decodeIfPresent([Int].self, forKey: .clients),
                role: try container.decodeIfPresent(Int.self, forKey: .role),
                admin: try container.decodeIfPresent(Bool.self, forKey: .admin))
            passwordBcrypt = try container.decodeIfPresent(String.self, forKey: .passwordBcrypt)
        }

        /// The user's GUID: ``id`` lower-cased, or one derived from the user name.
        package var guid: String {
            if let id { return id.lowercased() }
            var bytes = Array(SHA256.hash(data: Data("storybridge user/\(username)".utf8)).prefix(16))
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
            }
            return parts.joined(separator: "-")
        }

        /// Whether the user may see client `id`.
        func isGranted(client id: Int) -> Bool { clients?.contains(id) ?? true }
    }

    package var clients: [Client]
    /// Credentials accepted by the `client_credentials` grant.
    package var services: [Credentials]
    /// App credentials accepted with the `password` and `refresh_token` grants.
    package var apps: [Credentials]
    package var users: [User]

    package init(clients: [Client], services: [Credentials] = [], apps: [Credentials] = [], users: [User] = []) {
        self.clients = clients
        self.services = services
        self.apps = apps
        self.users = users
    }

    enum CodingKeys: String, CodingKey { case clients, services, apps, users }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            clients: try container.decode([Client].self, forKey: .clients),
            services: try container.decodeIfPresent([Credentials].self, forKey: .services) ?? [],
            apps: try container.decodeIfPresent([Credentials].self, forKey: .apps) ?? [],
            users: try container.decodeIfPresent([User].self, forKey: .users) ?? [])
    }

    /// The accounts for a library without a config file: one client (`clientId`, `clientName`)
    /// holding every installed presentation, with default flags.
    package static func wholeLibrary(
        clientId: Int = 1, clientName: String = "Library", services: [Credentials], apps: [Credentials], users: [User]
    ) -> ContentServerAccounts {
        var accounts = ContentServerAccounts(
            clients: [Client(id: clientId, name: clientName, presentations: [])], services: services, apps: apps,
            users: users)
        accounts.includesWholeLibrary = true
        return accounts
    }

    /// Whether the only client holds whatever the library has installed (read per request), rather
    /// than the presentations listed.
    var includesWholeLibrary = false

    /// Reads and checks a config file.
    package static func load(from file: URL) throws(ContentServerSetupError) -> ContentServerAccounts {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .unreadableConfig(file.path, error.localizedDescription)
        }
        let accounts: ContentServerAccounts
        do {
            accounts = try JSONDecoder().decode(ContentServerAccounts.self, from: data)
        } catch let error as DecodingError {
            throw .invalidConfig(file.path, Self.explain(error))
        } catch {
            throw .invalidConfig(file.path, "\(error)")
        }
        try accounts.validate(file: file.path)
        return accounts
    }

    /// Refuses duplicate ids and names that would make answers ambiguous.
    package func validate(file: String = "the configuration") throws(ContentServerSetupError) {
        var clientIds = Set<Int>()
        for client in clients {
            guard client.id > 0 else { throw .invalidConfig(file, "clients: id \(client.id) is not a positive integer") }
            guard clientIds.insert(client.id).inserted else { throw .invalidConfig(file, "clients: id \(client.id) appears twice") }
            var presentationIds = Set<Int>()
            for entry in client.presentations {
                guard entry.id > 0 else {
                    throw .invalidConfig(file, "client \(client.id): presentation id \(entry.id) is not a positive integer")
                }
                guard presentationIds.insert(entry.id).inserted else {
                    throw .invalidConfig(file, "client \(client.id): presentation \(entry.id) appears twice")
                }
            }
        }
        var usernames = Set<String>()
        for user in users where !usernames.insert(user.username).inserted {
            throw .invalidConfig(file, "users: username '\(user.username)' appears twice")
        }
        let allCredentials = services + apps
        if Set(allCredentials.map(\.clientId)).count != allCredentials.count {
            throw .invalidConfig(file, "services and apps: a client_id appears twice")
        }
        if allCredentials.isEmpty {
            throw .invalidConfig(file, "no services or apps: nobody could get a token")
        }
        let known = Set(clients.map(\.id))
        for service in services {
            if let unknown = service.clients?.first(where: { !known.contains($0) }) {
                throw .invalidConfig(file, "services: '\(service.clientId)' is granted client \(unknown), which is not configured")
            }
        }
        var guids = Set<String>()
        for user in users {
            switch (user.password.isEmpty, user.passwordBcrypt) {
            case (true, nil):
                throw .invalidConfig(file, "users: '\(user.username)' has neither password nor passwordBcrypt")
            case (false, .some):
                throw .invalidConfig(file, "users: '\(user.username)' has both password and passwordBcrypt; keep one")
            case (true, .some(let hash)) where !AdminPassword.isHash(hash):
                throw .invalidConfig(
                    file, "users: the passwordBcrypt of '\(user.username)' is not a bcrypt hash ($2b$…, from content-server hash-password)")
            default:
                break
            }
            if let unknown = user.clients?.first(where: { !known.contains($0) }) {
                throw .invalidConfig(file, "users: '\(user.username)' is granted client \(unknown), which is not configured")
            }
            if let id = user.id, UUID(uuidString: id) == nil {
                throw .invalidConfig(file, "users: the id of '\(user.username)' is not a GUID")
            }
            guard guids.insert(user.guid).inserted else { throw .invalidConfig(file, "users: id \(user.guid) appears twice") }
        }
    }

    /// The clients a token with `claims` may see; `nil` for every client. A user token (`sub`) is
    /// granted its user's clients, a service token its service's; a token whose user or service
    /// is no longer configured sees none.
    func grantedClients(to claims: AccessTokenClaims) -> Set<Int>? {
        if let subject = claims.sub {
            guard let user = users.first(where: { $0.guid == subject }) else { return [] }
            return user.clients.map(Set.init)
        }
        guard let service = services.first(where: { $0.clientId == claims.client_id }) else { return [] }
        return service.clients.map(Set.init)
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "\(at == "the top level" ? "" : at + ".")\(key.stringValue) is missing"
        case .typeMismatch(let type, let context): return "\(path(context)) should be \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) should be \(type), not null"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// The client entry for `presentationId`, first client first, among the clients `granted`
    /// (every client when `nil`).
    func placement(
        of presentationId: Int, installed: Set<Int>, granted: Set<Int>? = nil
    ) -> (client: Client, entry: PresentationEntry)? {
        for client in clients(installed: installed) where granted?.contains(client.id) ?? true {
            if let entry = client.presentations.first(where: { $0.id == presentationId }) { return (client, entry) }
        }
        return nil
    }

    /// The users granted client `id`.
    func users(of clientId: Int) -> [User] {
        users.filter { $0.isGranted(client: clientId) }
    }

    /// The clients as served, given the installed presentation ids: listed presentations that are
    /// not installed are left out.
    func clients(installed: Set<Int>) -> [Client] {
        if includesWholeLibrary, let only = clients.first {
            return [Client(id: only.id, name: only.name, presentations: installed.sorted().map { PresentationEntry(id: $0) })]
        }
        return clients.map { client in
            Client(id: client.id, name: client.name, presentations: client.presentations.filter { installed.contains($0.id) })
        }
    }
}
