import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Runs the CLI to completion and returns its exit status and output, waiting on a thread of its
/// own (see ``runStorybridge(_:environment:asUnprivilegedUser:)``).
func runCLI(_ arguments: [String]) async throws -> CLIResult {
    try await runStorybridge(arguments)
}

@Suite("Command line")
struct CommandLineTests {
    @Test("serve --port 0 prints the URL of a free port, serves there, and stops cleanly on Ctrl-C")
    func serveAndInterrupt() async throws {
        let serve = try await ServeProcess.start([demoFolder.path, "--port", "0", "--log-level", "warning"])
        let match = try #require(serve.output.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\//))
        let port = try #require(Int(match.1))
        #expect(port > 0 && port != 8080)
        let (status, _, body) = try await httpGet("http://127.0.0.1:\(port)/p/1/index.html")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("/__storybridge/client.js"))
        #expect(await serve.interrupt() == 0)
    }

    @Test("serve of a folder without index.html fails with a message and a non-zero status")
    func serveBadFolder() async throws {
        let folder = try makePresentationFolder(["readme.txt": "not a presentation"])
        let result = try await runCLI(["serve", folder.path, "--port", "0"])
        #expect(result.status != 0)
        #expect(result.errors.contains("has no index.html"))
    }

    @Test("a config file with a wrong type is refused naming the key")
    func badConfig() async throws {
        let folder = try makePresentationFolder(["config.json": #"{"identity": {"user": {"id": 5}}}"#])
        let result = try await runCLI(["serve", demoFolder.path, "--config", folder.appendingPathComponent("config.json").path])
        #expect(result.status != 0)
        #expect(result.errors.contains("identity.user.id"))
    }

    @Test("--help explains the commands")
    func help() async throws {
        let result = try await runCLI(["serve", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("--port"))
        #expect(result.output.contains("0 picks a free port"))
    }

    @Test("the demo bundles a byte-identical copy of the project's storyclm.js")
    func demoCarriesOwnLibrary() async throws {
        let own = try Data(contentsOf: repositoryRoot.appendingPathComponent("js/storyclm.js"))
        let bundled = try Data(contentsOf: demoFolder.appendingPathComponent("js/storyclm.js"))
        #expect(own == bundled)
    }
}

@Suite("Library commands")
struct LibraryCommandTests {
    func demoZip() throws -> URL { try zipFolder(demoFolder) }

    @Test("install, list, inspect and remove work on a data folder, with clear output and exit codes")
    func lifecycle() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-data-\(UUID().uuidString)").path
        let zip = try demoZip()
        let install = try await runCLI(["install", zip.path, "--name", "Demo deck", "--data-dir", data])
        #expect(install.status == 0)
        #expect(install.output.contains("installed \"Demo deck\" as presentation 1 (revision 1): 5 slides, 2 media files"))

        let list = try await runCLI(["list", "--json", "--data-dir", data])
        let listed = try JSONValue.parse(list.output)
        #expect(listed.arrayValue?.first?["name"] == "Demo deck")
        #expect(listed.arrayValue?.first?["slides"] == 5)

        let inspect = try await runCLI(["inspect", "1", "--json", "--data-dir", data])
        let described = try JSONValue.parse(inspect.output)
        #expect(described["map"]?["index.html"] == ["products.html", "legacy.html"])
        #expect(described["mediaFiles"]?.arrayValue?.count == 2)

        let inspectZip = try await runCLI(["inspect", zip.path, "--data-dir", data])
        #expect(inspectZip.status == 0)
        #expect(inspectZip.output.contains("summary.html"))

        let remove = try await runCLI(["remove", "1", "--data-dir", data])
        #expect(remove.status == 0)
        let again = try await runCLI(["remove", "1", "--data-dir", data])
        #expect(again.status != 0)
        #expect(again.errors.contains("no presentation with id 1 is installed"))
    }

    @Test("a hostile package is refused with a specific message and a non-zero exit, leaving nothing")
    func hostileInstall() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-data-\(UUID().uuidString)")
        let zip = FileManager.default.temporaryDirectory.appendingPathComponent("sb-evil-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<html></html>")
        try writer.add("../../escape.html", text: "x")
        try writer.close()
        let result = try await runCLI(["install", zip.path, "--data-dir", data.path])
        #expect(result.status == 65)
        #expect(result.errors.contains("refused entry '../../escape.html': '..' escapes the package folder"))
        let presentations = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("presentations").path)
        #expect(presentations.isEmpty)
    }

    @Test("serve accepts a .zip and an installed id")
    func serveZipAndId() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-data-\(UUID().uuidString)").path
        let zip = try demoZip()
        for target in [zip.path, "1"] {
            if target == "1" { _ = try await runCLI(["install", zip.path, "--data-dir", data]) }
            let serve = try await ServeProcess.start([target, "--port", "0", "--data-dir", data, "--log-level", "error"])
            let page = try await httpGet(serve.baseURL + "/p/1/summary.html")
            #expect(page.status == 200, "serving \(target)")
            #expect(await serve.interrupt() == 0)
        }
    }
}
