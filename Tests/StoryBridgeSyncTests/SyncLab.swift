import Foundation
import GRDB
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import StoryBridgeTesting
import Synchronization
import Testing

/// A content server on loopback over its own library of real zips, and a separate client data
/// folder that the real `storybridge` CLI (or the sync library) syncs into.
final class SyncLab: LabAccount, @unchecked Sendable {
    // Set once in init, then read only; `server` is replaced only by the test's own thread.
    let folder: URL
    let serverDirectory: DataDirectory
    let serverLibrary: LibraryStore
    let clientDirectory: DataDirectory
    var server: RunningContentServer?
    let secret = Data("sync-lab-signing-secret".utf8)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        serverDirectory = DataDirectory(folder.appendingPathComponent("server"))
        serverLibrary = try LibraryStore(directory: serverDirectory)
        clientDirectory = DataDirectory(folder.appendingPathComponent("client"))
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
        // A test that did not stop its server: the server's package builds would make its
        // folders again, so it is stopped first and the folder removed after it.
        if let server {
            let folder = self.folder
            Task {
                await server.stop()
                try? FileManager.default.removeItem(at: folder)
            }
        }
    }

    /// Installs on the server a presentation `id` whose package holds `payloadBytes` of
    /// incompressible data (so the package is about that size), marked with `title`, at library
    /// revision `revision` (the next one when nil; an older one stands for a server rolled back).
    @discardableResult
    func publish(id: Int, title: String = "v1", payloadBytes: Int = 4096, revision: Int? = nil) throws -> LibraryStore.Entry {
        let zip = folder.appendingPathComponent("deck-\(id)-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<!DOCTYPE html><html><head><title>\(title)</title></head><body><h1>\(title)</h1></body></html>")
        try writer.add("b.html", text: "<!DOCTYPE html><html><head><title>B</title></head><body>B of \(title)</body></html>")
        var generator = SeededBytes(seed: UInt64(id) &* 2_654_435_761 &+ UInt64(title.utf8.count))
        try writer.add("mediafiles/film.mp4", data: generator.bytes(payloadBytes), compress: false)
        try writer.close()
        defer { try? FileManager.default.removeItem(at: zip) }
        var options = LibraryStore.InstallOptions(id: id, name: "Deck \(id)")
        options.revision = revision
        return try serverLibrary.install(zip: zip, options: options)
    }

    /// Starts (or restarts, on the same port, so the stored session still points at it) the
    /// content server with these faults and lifetimes.
    /// `presentations`, when given, is the client's list with its flags (skip...) instead of the
    /// whole library; `refreshGrace` is how long a rotated refresh token is still accepted.
    func startServer(
        faults: TestFaults = TestFaults(), linkLifetime: Int = 3600, tokenLifetime: Int = 3600, mediaOutsidePackages: Bool = false,
        presentations: [ContentServerAccounts.PresentationEntry]? = nil, refreshGrace: TimeInterval = 10
    ) async throws {
        let port = server?.port ?? 0
        await server?.stop()
        var accounts = ContentServerAccounts.wholeLibrary(
            clientId: 7, clientName: "Kiosks",
            services: [.init(clientId: Self.serviceId, clientSecret: Self.serviceSecret)],
            apps: [.init(clientId: Self.appId, clientSecret: Self.appSecret)],
            users: [.init(username: Self.username, password: Self.password, fullname: "Anna Petrova")])
        if let presentations {
            accounts = ContentServerAccounts(
                clients: [.init(id: 7, name: "Kiosks", presentations: presentations)], services: accounts.services,
                apps: accounts.apps, users: accounts.users)
        }
        var configuration = ContentServerConfiguration(
            host: "127.0.0.1", port: port, dataDirectory: serverDirectory, accounts: accounts, signingSecret: secret,
            accessTokenLifetime: tokenLifetime, linkLifetime: linkLifetime, faults: faults)
        configuration.mediaFilesOutsidePackages = mediaOutsidePackages
        configuration.refreshGracePeriod = refreshGrace
        var logger = Logger(label: "test.content-server")
        logger.logLevel = .critical
        server = try await ContentServer(configuration: configuration, logger: logger).start()
    }

    /// A new lab whose content server serves what `publish` installs (started with `faults`, the
    /// lifetimes and `mediaOutsidePackages`), the CLI not logged in yet.
    static func serving(
        faults: TestFaults = TestFaults(), linkLifetime: Int = 3600, tokenLifetime: Int = 3600, mediaOutsidePackages: Bool = false,
        refreshGrace: TimeInterval = 10, publishing publish: (SyncLab) throws -> Void
    ) async throws -> SyncLab {
        let lab = try SyncLab()
        try publish(lab)
        try await lab.startServer(
            faults: faults, linkLifetime: linkLifetime, tokenLifetime: tokenLifetime, mediaOutsidePackages: mediaOutsidePackages,
            refreshGrace: refreshGrace)
        return lab
    }

    /// As ``serving(faults:linkLifetime:tokenLifetime:mediaOutsidePackages:refreshGrace:publishing:)``,
    /// with the CLI logged in as the service.
    static func loggedIn(
        faults: TestFaults = TestFaults(), linkLifetime: Int = 3600, mediaOutsidePackages: Bool = false,
        publishing publish: (SyncLab) throws -> Void
    ) async throws -> SyncLab {
        let lab = try await serving(
            faults: faults, linkLifetime: linkLifetime, mediaOutsidePackages: mediaOutsidePackages, publishing: publish)
        try await lab.loginAsService()
        return lab
    }

    func stopServer() async {
        await server?.stop()
        server = nil
    }

    var baseURL: String { server!.baseURL }

    /// Runs the CLI with `--data-dir` of the client folder; `input` goes to standard input. The
    /// wait happens on a thread of its own (never a dispatch or cooperative one), so the in-process content server keeps its threads.
    func cli(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, output: String, errors: String) {
        let process = try await spawn(arguments, input: input)
        return await Self.finish(process)
    }

    /// Waits for a spawned CLI to exit and returns its status and output.
    static func finish(_ process: (process: LaunchedProcess, output: Pipe, errors: Pipe)) async -> (
        status: Int32, output: String, errors: String
    ) {
        let (out, err) = await readUntilExit(process.process, output: process.output, errors: process.errors)
        return (process.process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// Starts the CLI without waiting for it.
    func spawn(_ arguments: [String], input: String? = nil) async throws -> (process: LaunchedProcess, output: Pipe, errors: Pipe) {
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(), arguments: arguments + ["--data-dir", clientDirectory.root.path], input: .pipe(stdin),
            output: .pipe(output), error: .pipe(errors))
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        return (process, output, errors)
    }

    /// Runs `serve` of the client library with `arguments` while `body` runs, then stops it with
    /// SIGINT and waits for it to exit (killing it after a minute, which fails the test), also when
    /// `body` throws.
    func withServe(
        _ arguments: [String], _ body: ((process: LaunchedProcess, output: Pipe, errors: Pipe)) async throws -> Void
    ) async throws {
        let serve = try await spawn(["serve"] + arguments)
        do {
            try await body(serve)
        } catch {
            serve.process.interrupt()
            await waitForExit(serve.process)
            throw error
        }
        serve.process.interrupt()
        #expect(await waitForExit(serve.process), "serve did not stop within a minute of SIGINT")
    }

    /// Waits until `condition` holds, checking every 20 ms, for at most `seconds`.
    static func waitUntil(seconds: Double = 30, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { throw LabFailure("timed out waiting") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Logs the CLI in as the service account (the API at `api`, the content server by default).
    func loginAsService(api: String? = nil) async throws {
        let result = try await cli([
            "login", "--auth", baseURL, "--api", api ?? baseURL, "--client-id", Self.serviceId, "--client-secret", Self.serviceSecret,
        ])
        guard result.status == 0 else { throw LabFailure("login failed: \(result.errors)") }
    }

    /// Logs the CLI in as the user (password grant, password on stdin).
    func loginAsUser(password: String = SyncLab.password) async throws -> (status: Int32, output: String, errors: String) {
        try await cli(
            [
                "login", "--auth", baseURL, "--api", baseURL, "--client-id", Self.appId, "--client-secret", Self.appSecret,
                "--username", Self.username, "--password-stdin",
            ], input: password + "\n")
    }

    /// The client's library, opened afresh.
    func clientLibrary() throws -> LibraryStore { try LibraryStore(directory: clientDirectory) }

    /// The client's sync catalog rows.
    func catalog() async throws -> [Int: SyncedPresentation] {
        let rows = try await SyncCatalog(database: clientLibrary().database).presentations()
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })
    }

    /// The sync library, logged in with the stored session.
    func service() throws -> SyncService {
        var logger = Logger(label: "test.sync")
        logger.logLevel = .critical
        return try SyncService(directory: clientDirectory, retry: RetryPolicy(maxAttempts: 6, baseDelay: .milliseconds(20)), logger: logger)
    }

    /// Files left in the client's downloads folder.
    func leftoverDownloads() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: SyncPaths(clientDirectory).downloads.path)) ?? []
    }

    /// The title of the installed index.html of presentation `id` in the client library.
    func installedTitle(_ id: Int) throws -> String? {
        guard let entry = try clientLibrary().entry(id: id) else { return nil }
        let html = try String(contentsOf: entry.presentation.root.appendingPathComponent("index.html"), encoding: .utf8)
        return html.firstMatch(of: /<title>([^<]*)<\/title>/).map { String($0.1) }
    }

    /// The server's built package file of the package the client's catalog last saw offered for
    /// presentation `id` (its package id and revision, as `/v1/presentations/{id}` sent them).
    func serverPackage(id: Int, mediaOutsidePackages: Bool = false) async throws -> URL {
        let row = try await catalog()[id]
        guard let packageId = row?.packageId, let revision = row?.packageRevision else {
            throw LabFailure("the client's catalog has no package for presentation \(id)")
        }
        let folder = mediaOutsidePackages ? "packages-without-media" : "packages"
        return serverDirectory.root.appendingPathComponent("content-server/\(folder)/\(packageId)-r\(revision).zip")
    }
}

struct LabFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Deterministic incompressible bytes (xorshift).
struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func bytes(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }
}
