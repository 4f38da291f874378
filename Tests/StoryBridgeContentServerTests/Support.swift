import Foundation
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeScripts
import StoryBridgeTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A temporary data folder with presentations installed from real zips, and a content server on
/// loopback over it.
struct ContentLab: LabAccount {
    /// Removed when the last copy of the lab goes.
    private let scratch: OwnedScratchFolder
    var folder: URL { scratch.url }
    let directory: DataDirectory
    let library: LibraryStore

    static let fullname = "Anna Petrova"

    init() throws {
        scratch = try OwnedScratchFolder("sb-content")
        directory = DataDirectory(scratch.url.appendingPathComponent("data"))
        library = try LibraryStore(directory: directory)
    }

    static func slide(title: String, links: [String] = [], next: String? = nil, previous: String? = nil) -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8">
        <meta name="clm-swipe-next" content="\(next ?? "")">
        <meta name="clm-swipe-previous" content="\(previous ?? "")">
        <meta name="clm" content="\(links.joined(separator: ","))">
        <title>\(title)</title></head><body><h1>\(title)</h1></body></html>
        """
    }

    /// Writes a presentation zip with `ZipWriter` and installs it as `id`.
    @discardableResult
    func install(id: Int, title: String = "v1", mediaBytes: Int = 3000) throws -> LibraryStore.Entry {
        let zip = folder.appendingPathComponent("deck-\(id)-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: Self.slide(title: title, links: ["b.html"], next: "b.html"))
        try writer.add("b.html", text: Self.slide(title: "B of \(title)", links: ["index.html"], previous: "index.html"))
        try writer.add("css/site.css", text: "body { color: #333 } /* \(title) */")
        try writer.add("mediafiles/film.mp4", data: Data((0..<mediaBytes).map { UInt8(truncatingIfNeeded: $0 * 7 + id) }), compress: false)
        try writer.close()
        return try library.install(zip: zip, options: .init(id: id, name: "Deck \(id)"))
    }

    func accounts(clients: [ContentServerAccounts.Client]? = nil) -> ContentServerAccounts {
        let services = [ContentServerAccounts.Credentials(clientId: Self.serviceId, clientSecret: Self.serviceSecret)]
        let apps = [ContentServerAccounts.Credentials(clientId: Self.appId, clientSecret: Self.appSecret)]
        let users = [ContentServerAccounts.User(username: Self.username, password: Self.password, fullname: Self.fullname)]
        guard let clients else {
            return .wholeLibrary(clientId: 7, clientName: "Kiosks", services: services, apps: apps, users: users)
        }
        return ContentServerAccounts(clients: clients, services: services, apps: apps, users: users)
    }

    func configuration(
        accounts: ContentServerAccounts? = nil, faults: TestFaults = TestFaults(), tokenLifetime: Int = 3600,
        linkLifetime: Int = 3600, clockSkew: TimeInterval = 5, clock: (any HostClock)? = nil
    ) -> ContentServerConfiguration {
        var configuration = ContentServerConfiguration(
            port: 0, dataDirectory: directory, accounts: accounts ?? self.accounts(), accessTokenLifetime: tokenLifetime,
            linkLifetime: linkLifetime, allowedClockSkew: clockSkew, faults: faults)
        if let clock { configuration.clock = clock }
        return configuration
    }

    /// Starts a server with `configuration`, runs `body` and stops the server.
    func withServer<T>(
        _ configuration: ContentServerConfiguration? = nil, _ body: (ContentClient) async throws -> T
    ) async throws -> T {
        try await withRunningServer(configuration) { client, _ in try await body(client) }
    }

    /// Starts a server with `configuration`, runs `body` with a client and the running server, and
    /// stops the server.
    func withRunningServer<T>(
        _ configuration: ContentServerConfiguration? = nil, _ body: (ContentClient, RunningContentServer) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "test.content-server")
        logger.logLevel = .critical
        let server = try ContentServer(configuration: configuration ?? self.configuration(), logger: logger)
        return try await server.whileRunning { running in try await body(ContentClient(baseURL: running.baseURL), running) }
    }
}

extension ContentServer {
    /// Starts this server (waiting for its packages when `waitingForPackages`), runs `body` with it
    /// running, and stops it afterwards, also when `body` throws.
    func whileRunning<T>(waitingForPackages: Bool = true, _ body: (RunningContentServer) async throws -> T) async throws -> T {
        let running = try await start(waitingForPackages: waitingForPackages)
        return try await withCleanup {
            try await body(running)
        } cleanup: {
            await running.stop()
        }
    }
}

extension ContentLab {
    /// A new lab with decks `ids` installed (`mediaBytes` of media each), served with `faults`;
    /// `body` gets the lab, a client and a service token.
    static func serving<T>(
        decks ids: [Int], mediaBytes: Int = 3000, faults: TestFaults = TestFaults(),
        _ body: (ContentLab, ContentClient, String) async throws -> T
    ) async throws -> T {
        try await servingRunning(decks: ids, mediaBytes: mediaBytes, faults: faults) { lab, client, _, token in
            try await body(lab, client, token)
        }
    }

    /// A new lab with no decks, served on a manual clock (with `tokenLifetime` and `clockSkew`);
    /// `body` gets a client and the clock.
    static func servingOnManualClock<T>(
        tokenLifetime: Int = 3600, clockSkew: TimeInterval = 5, _ body: (ContentClient, ManualHostClock) async throws -> T
    ) async throws -> T {
        let lab = try ContentLab()
        let clock = ManualHostClock(start: Date())
        return try await lab.withServer(lab.configuration(tokenLifetime: tokenLifetime, clockSkew: clockSkew, clock: clock)) { client in
            try await body(client, clock)
        }
    }

    /// As `serving`, with the running server too (to change its faults or read its address).
    static func servingRunning<T>(
        decks ids: [Int], mediaBytes: Int = 3000, faults: TestFaults = TestFaults(),
        _ body: (ContentLab, ContentClient, RunningContentServer, String) async throws -> T
    ) async throws -> T {
        let lab = try ContentLab()
        for id in ids { try lab.install(id: id, mediaBytes: mediaBytes) }
        return try await lab.withRunningServer(lab.configuration(faults: faults)) { client, running in
            try await body(lab, client, running, try await client.serviceToken())
        }
    }
}

/// An HTTP answer.
struct Reply {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a JSON object.
    func object() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "not a JSON object: \(text)"])
        }
        return object
    }

    /// The body as a JSON array of objects.
    func array() throws -> [[String: Any]] {
        guard let array = try JSONSerialization.jsonObject(with: body) as? [[String: Any]] else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "not a JSON array: \(text)"])
        }
        return array
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON, keeping integers, booleans and null apart.
    func json() throws -> JSONValue { try JSONValue.parse(text) }
}

/// Talks to a content server on loopback with URLSession.
struct ContentClient: Sendable {
    let baseURL: String

    func send(
        _ method: String = "GET", _ pathOrURL: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Reply {
        let url = pathOrURL.hasPrefix("http") ? pathOrURL : baseURL + pathOrURL
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields[String(describing: key).lowercased()] = String(describing: value) }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    func get(_ path: String, token: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var all = headers
        if let token { all["Authorization"] = "Bearer \(token)" }
        return try await send("GET", path, headers: all)
    }

    /// `POST /connect/token` with `fields` form-encoded.
    func token(_ fields: [String: String]) async throws -> Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        return try await send(
            "POST", "/connect/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
    }

    func serviceToken() async throws -> String {
        let reply = try await token([
            "grant_type": "client_credentials", "client_id": ContentLab.serviceId, "client_secret": ContentLab.serviceSecret,
        ])
        guard reply.status == 200, let token = try reply.object()["access_token"] as? String else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "no token: \(reply.status) \(reply.text)"])
        }
        return token
    }

    func passwordGrant() async throws -> Reply {
        try await token([
            "grant_type": "password", "client_id": ContentLab.appId, "client_secret": ContentLab.appSecret,
            "username": ContentLab.username, "password": ContentLab.password,
        ])
    }

    /// The `sas` of presentation `id`'s content package.
    func packageLink(_ id: Int, token: String) async throws -> String {
        let reply = try await get("/v1/contentpackages/\(id)", token: token)
        guard reply.status == 200, let sas = try reply.object()["sas"] as? String else {
            throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "no sas: \(reply.status) \(reply.text)"])
        }
        return sas
    }
}

/// The claims of a JWT, decoded without checking the signature.
func jwtClaims(_ token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { throw CocoaError(.coderReadCorrupt) }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64),
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw CocoaError(.coderReadCorrupt) }
    return object
}

/// The published package zip of presentation `id` built from presentation revision `revision`,
/// found through the server's package registry in the data folder.
func cachedPackage(_ lab: ContentLab, id: Int, revision: Int) throws -> Data {
    let folder = lab.directory.root.appendingPathComponent("content-server/packages")
    let registry = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("registry.json")))
    guard let packages = (registry as? [String: Any])?["packages"] as? [String: [String: Any]],
        let package = packages[String(id)], package["presentationRevision"] as? Int == revision,
        let packageId = package["id"] as? Int, let packageRevision = package["revision"] as? Int
    else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no package of presentation \(id) revision \(revision)"])
    }
    return try Data(contentsOf: folder.appendingPathComponent("\(packageId)-r\(packageRevision).zip"))
}
