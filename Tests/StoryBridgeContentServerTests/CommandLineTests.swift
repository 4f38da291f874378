import Foundation
import StoryBridgeTesting
import Testing

@Suite("Content server: command line")
struct ContentServerCommandLineTests {
    @Test("content-server --port 0 prints its address, answers tokens and content, and stops on SIGTERM")
    func startAnswerStop() async throws {
        let lab = try ContentLab()
        try lab.install(id: 4)
        let server = try await ContentServerProcess.start(
            lab, ["--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret])
        let client = ContentClient(baseURL: server.baseURL)
        let token = try await client.serviceToken()
        let clients = try await client.get("/v1/clients/", token: token)
        #expect(clients.status == 200)
        #expect(try clients.array().first?["presentations"] as? [[String: Any]] != nil)
        #expect(try await client.get(try await client.packageLink(4, token: token)).status == 200)
        #expect(await server.stop(), "content-server did not stop within a minute of SIGTERM")
        #expect(server.process.terminationStatus == 0)
    }

    @Test("The test options work through the command line: fail status, Retry-After, scope, drops, link lifetime, refresh, media outside")
    func testOptionsFromTheCommandLine() async throws {
        let lab = try ContentLab()
        try lab.install(id: 3, mediaBytes: 200_000)
        let server = try await ContentServerProcess.start(
            lab,
            [
                "--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret, "--app-id", ContentLab.appId,
                "--app-secret", ContentLab.appSecret, "--user", "\(ContentLab.username):\(ContentLab.password)",
                "--test-fail-first", "1", "--test-fail-status", "429", "--test-retry-after", "7", "--test-fail-on", "blobs",
                "--test-drop-after-bytes", "100", "--test-drop-times", "1", "--test-link-lifetime", "120",
                "--test-reject-refresh", "--media-outside-packages",
            ])
        defer { server.process.terminate() }
        #expect(server.banner.contains("Test options on:"), "\(server.banner)")
        let client = ContentClient(baseURL: server.baseURL)
        let token = try await client.serviceToken()
        // --test-fail-on blobs: the content routes are not failed.
        let clients = try await client.get("/v1/clients", token: token)
        #expect(clients.status == 200)
        let package = try await client.get("/v1/contentpackages/3", token: token).object()
        let link = try #require(package["sas"] as? String)
        let size = try #require(package["fileSize"] as? Int)
        // --test-link-lifetime 120: the link's exp is about two minutes from now.
        let expiry = try #require(link.firstMatch(of: /[?&]exp=(\d+)/).flatMap { Int($0.1) })
        let lifetime = expiry - Int(Date().timeIntervalSince1970)
        #expect((100...121).contains(lifetime), "link lifetime \(lifetime) s")
        // --test-fail-first 1 --test-fail-status 429 --test-retry-after 7: the first blob request.
        let refused = try await client.get(link)
        #expect(refused.status == 429)
        #expect(refused.header("retry-after") == "7")
        // --test-drop-after-bytes 100 --test-drop-times 1: the next one is cut after 100 bytes.
        let cut = try await RawHTTP.get(link)
        #expect(cut.declaredLength == size)
        #expect(size > 100)
        #expect(cut.body.count == 100)
        // Then the package arrives whole, without the media file (--media-outside-packages).
        let whole = try await client.get(link)
        #expect(whole.status == 200)
        #expect(whole.body.count == size)
        #expect(whole.body.prefix(100) == cut.body)
        #expect(size < 200_000, "the 200 KB film is left out of the package")
        #expect(whole.body.range(of: Data("mediafiles/film.mp4".utf8)) == nil)
        let presentation = try await client.get("/v1/presentations/3", token: token).object()
        let mediaId = try #require((presentation["mediaFiles"] as? [[String: Any]])?.first?["id"] as? Int)
        let media = try await client.get("/v1/mediafiles/\(mediaId)", token: token).object()
        let film = try await client.get(try #require(media["sas"] as? String))
        #expect(film.body.count == 200_000)
        // --test-reject-refresh: a refresh grant is refused with invalid_grant.
        let login = try await client.passwordGrant()
        #expect(login.status == 200)
        let refreshToken = try #require(try login.object()["refresh_token"] as? String)
        let refresh = try await client.refresh(refreshToken)
        #expect(refresh.status == 400)
        #expect(try refresh.object()["error"] as? String == "invalid_grant")
        #expect(await server.stop())
    }

    @Test("Client-test faults and --blob-links azure by flag: 204 for a presentation and a package, 403, an empty list once")
    func forcedAnswersFromTheCommandLine() async throws {
        let lab = try ContentLab()
        for id in 1...3 { try lab.install(id: id) }
        let server = try await ContentServerProcess.start(
            lab,
            [
                "--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret,
                "--test-no-content-presentation", "1", "--test-no-content-package", "2", "--test-forbid-presentation", "3",
                "--test-empty-clients", "1", "--blob-links", "azure",
            ])
        defer { server.process.terminate() }
        #expect(server.banner.contains("204 for presentation(s) 1"), "\(server.banner)")
        let client = ContentClient(baseURL: server.baseURL)
        let token = try await client.serviceToken()
        #expect(try await client.get("/v1/clients", token: token).array().isEmpty)
        #expect(try await client.get("/v1/clients", token: token).array().count == 1)
        #expect(try await client.get("/v1/presentations/1", token: token).status == 204)
        #expect(try await client.packageLink(1, token: token).contains("?sv=2016-05-31&sr=b&sig="))
        #expect(try await client.get("/v1/presentations/2", token: token).status == 200)
        #expect(try await client.get("/v1/contentpackages/2", token: token).status == 204)
        #expect(try await client.get("/v1/presentations/3", token: token).status == 403)
        #expect(await server.stop())
    }

    @Test("--test-republish ID: after the start-up build, the package gets revision 2 under presentation revision 1")
    func republishFromTheCommandLine() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        let server = try await ContentServerProcess.start(
            lab, ["--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret, "--test-republish", "1"])
        defer { server.process.terminate() }
        #expect(server.banner.contains("package(s) of 1 republished after start-up"), "\(server.banner)")
        let client = ContentClient(baseURL: server.baseURL)
        let token = try await client.serviceToken()
        var folder: [String: Any] = [:]
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let reply = try await client.get("/v1/presentations/1", token: token)
            if reply.status == 200 {
                folder = try #require(try reply.object()["sourcesFolder"] as? [String: Any])
                #expect(try reply.object()["revision"] as? Int == 1)
                if folder["revision"] as? Int == 2 { break }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(folder["revision"] as? Int == 2, "\(folder)")
        #expect(try await client.packageLink(1, token: token).contains("/blobs/packages/1-r2.zip?"))
        #expect(await server.stop())
    }

    @Test("--tls-cert/--tls-key: the server says https and its links are https; one without the other is refused")
    func tlsFromTheCommandLine() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        let files = try await TLSTests.selfSignedCertificate(in: lab.folder)
        let server = try await ContentServerProcess.start(
            lab,
            [
                "--client-id", ContentLab.serviceId, "--client-secret", ContentLab.serviceSecret, "--tls-cert",
                files.certificateChain.path, "--tls-key", files.privateKey.path,
            ])
        defer { server.process.terminate() }
        #expect(server.baseURL.hasPrefix("https://127.0.0.1:"), "\(server.banner)")
        #expect(await server.stop())
        let output = Pipe()
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(),
            arguments: [
                "content-server", "--port", "0", "--data-dir", lab.directory.root.path, "--client-id", "a", "--client-secret", "b",
                "--tls-cert", files.certificateChain.path,
            ], output: .pipe(output), error: .pipe(errors))
        let (_, err) = await readUntilExit(process, output: output, errors: errors)
        #expect(process.terminationStatus != 0)
        #expect(String(decoding: err, as: UTF8.self).contains("--tls-cert and --tls-key go together"))
    }

    @Test("--help lists the test options under their own title; missing credentials are refused")
    func helpAndValidation() async throws {
        // Read on a thread of its own until the child exits (not to end-of-file: a browser
        // started by another test at the same moment can hold the pipe open).
        func run(_ arguments: [String]) async throws -> (Int32, String) {
            try await runStorybridgeToExit(arguments)
        }
        let (status, help) = try await run(["content-server", "--help"])
        #expect(status == 0)
        #expect(help.contains("TEST OPTIONS"))
        for option in [
            "--test-drop-after-bytes", "--test-fail-first", "--test-link-lifetime", "--test-reject-refresh", "--config",
            "--test-no-content-presentation", "--test-no-content-package", "--test-forbid-presentation", "--test-empty-clients",
        ] {
            #expect(help.contains(option), "\(option)")
        }
        let (refused, message) = try await run(["content-server", "--port", "0"])
        #expect(refused != 0)
        #expect(message.contains("--config"))
    }
}

/// `storybridge content-server --port 0` over a lab's data folder, as a child process.
struct ContentServerProcess {
    let process: LaunchedProcess
    /// `http://127.0.0.1:PORT`, from the line it prints.
    let baseURL: String
    /// What it printed before "Press Ctrl-C".
    let banner: String

    /// Starts the server with `arguments` after `--port 0 --data-dir`, and waits for its address.
    static func start(_ lab: ContentLab, _ arguments: [String]) async throws -> ContentServerProcess {
        let output = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(), arguments: ["content-server", "--port", "0", "--data-dir", lab.directory.root.path] + arguments,
            output: .pipe(output), error: .discard)
        let text = await readUntil("Ctrl-C", from: output)
        guard let match = text.firstMatch(of: /listening on (https?:\/\/127\.0\.0\.1:\d+)\//) else {
            process.terminate()
            await waitForExit(process)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "content-server did not start: \(text)"])
        }
        return ContentServerProcess(process: process, baseURL: String(match.1), banner: text)
    }

    /// Sends SIGTERM and waits (up to a minute) for the process to end.
    func stop() async -> Bool {
        process.terminate()
        return await waitForExit(process)
    }
}
