import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Runs the real binary into each error a person can meet and checks the exact words and exit
/// status: the path or address is named, the problem is said in words, and no Foundation error
/// text leaks through.
@Suite("CLI error messages")
struct CLIErrorMessageTests {
    static let foundationTexts = ["NSCocoaErrorDomain", "The operation could not be completed", "Error Domain=", "POSIXErrorCode"]

    func expectNoFoundationText(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in Self.foundationTexts {
            #expect(!result.errors.contains(text), "leaked \(text): \(result.errors)", sourceLocation: sourceLocation)
        }
    }

    static func usage(_ command: String, _ synopsis: String) -> String {
        "Usage: storybridge \(command) \(synopsis)\n  See 'storybridge \(command) --help' for more information.\n"
    }

    @Test("serve of a missing path: the subcommand's usage line, exit 64")
    func serveMissingPath() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let missing = folder.appendingPathComponent("no-such-deck").path
            let result = try await runStorybridge(["serve", missing, "--data-dir", folder.path])
            #expect(result.status == 64)
            #expect(result.errors == "Error: '\(missing)' does not exist\n" + Self.usage("serve", "[<options>] [<target>]"))
        }
    }

    @Test("install of a folder, a missing file and a file that is not a zip")
    func installBadPackages() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let data = folder.appendingPathComponent("data").path
            let deck = folder.appendingPathComponent("deck")
            try FileManager.default.createDirectory(at: deck, withIntermediateDirectories: true)
            let folderResult = try await runStorybridge(["install", deck.path, "--data-dir", data])
            #expect(folderResult.status == 65)
            #expect(
                folderResult.errors
                    == "storybridge install: '\(deck.path)' is a folder: install takes a package zip, or a Veeva or OCE delivery folder "
                    + "of key-message (sequence) zips; to look at a plain folder, serve it\n")

            let missing = folder.appendingPathComponent("missing.zip").path
            let missingResult = try await runStorybridge(["install", missing, "--data-dir", data])
            #expect(missingResult.status == 65)
            #expect(missingResult.errors == "storybridge install: cannot read '\(missing)': not found\n")

            let text = folder.appendingPathComponent("notes.zip")
            try "not a zip".write(to: text, atomically: true, encoding: .utf8)
            let textResult = try await runStorybridge(["install", text.path, "--data-dir", data])
            #expect(textResult.status == 65)
            #expect(textResult.errors == "storybridge install: '\(text.path)' is not a zip file\n")
            for result in [folderResult, missingResult, textResult] { expectNoFoundationText(result) }
        }
    }

    @Test("install of a file the user may not read: permission denied")
    func installUnreadable() async throws {
        try await withScratchFolder("sb-cli") { folder in
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
            let zip = folder.appendingPathComponent("private.zip")
            let writer = try ZipWriter(path: zip.path)
            try writer.add("index.html", text: "<html></html>")
            try writer.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: zip.path)
            let result = try await runStorybridge(
                ["install", zip.path, "--data-dir", folder.appendingPathComponent("data").path], asUnprivilegedUser: true)
            #expect(result.status == 65)
            #expect(result.errors == "storybridge install: cannot read '\(zip.path)': permission denied\n")
        }
    }

    @Test("a data folder that is a file, and one that cannot be created")
    func dataFolderProblems() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let file = folder.appendingPathComponent("data")
            try "x".write(to: file, atomically: true, encoding: .utf8)
            for command in [["list"], ["sessions", "list"], ["install", "deck.zip"]] {
                let result = try await runStorybridge(command + ["--data-dir", file.path])
                #expect(result.status == 74, "\(command)")
                #expect(
                    result.errors
                        == "storybridge \(command.prefix(2).filter { $0 != "deck.zip" }.joined(separator: " ")): cannot use the data folder '\(file.path)': is not a folder (a file is in the way)\n"
                )
                expectNoFoundationText(result)
            }
            let nested = file.appendingPathComponent("inside").path
            let result = try await runStorybridge(["list", "--data-dir", nested])
            #expect(result.status == 74)
            #expect(
                result.errors
                    == "storybridge list: cannot create the data folder inside '\(file.path)': is not a folder (a file is in the way)\n")
        }
    }

    @Test("test of a missing script, an empty folder and a pattern that matches nothing: exit 2")
    func testMissingScripts() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let missing = folder.appendingPathComponent("smoke.yaml").path
            let missingResult = try await runStorybridge(["test", missing])
            #expect(missingResult.status == 2)
            #expect(missingResult.errors == "storybridge test: '\(missing)': not found\n")

            let emptyResult = try await runStorybridge(["test", folder.path])
            #expect(emptyResult.status == 2)
            #expect(emptyResult.errors == "storybridge test: '\(folder.path)' holds no script (.yaml, .yml or .json)\n")

            let pattern = folder.path + "/*.yaml"
            let patternResult = try await runStorybridge(["test", pattern])
            #expect(patternResult.status == 2)
            #expect(patternResult.errors == "storybridge test: no file matches '\(pattern)'\n")
        }
    }

    @Test("a config file that is not JSON, is missing or is a folder: named, with serve's usage")
    func badConfigFiles() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let broken = folder.appendingPathComponent("broken.json")
            try "{\"identity\": ".write(to: broken, atomically: true, encoding: .utf8)
            let cases: [(String, String)] = [
                (broken.path, "config file '\(broken.path)' is invalid: The given data was not valid JSON. at '(top level)'"),
                (folder.appendingPathComponent("none.json").path, "cannot read config file '\(folder.path)/none.json': not found"),
                (folder.path, "cannot read config file '\(folder.path)': is a folder, not a file"),
            ]
            for (config, message) in cases {
                let result = try await runStorybridge(["serve", demoFolder.path, "--config", config, "--data-dir", folder.path])
                #expect(result.status == 64)
                #expect(result.errors == "Error: \(message)\n" + Self.usage("serve", "[<options>] [<target>]"))
                expectNoFoundationText(result)
            }
        }
    }

    @Test("upload to a collector address where nothing listens: connection refused, exit 75")
    func uploadUnreachable() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let directory = DataDirectory(folder.appendingPathComponent("data"))
            _ = try await savedSessions(1, directory: directory)
            // A port held bound where nothing listens: no other test's server can be given it.
            let refusing = try RefusingPort()
            defer { refusing.close() }
            let endpoint = "http://127.0.0.1:\(refusing.port)"
            let result = try await runStorybridge([
                "upload", "--once", "--upload-endpoint", endpoint, "--upload-key", "key1", "--upload-secret", "s3cr3t",
                "--data-dir", directory.root.path,
            ])
            #expect(result.status == 75)
            #expect(result.output == "sent 0, will retry 1, set aside 0\n")
            #expect(
                result.errors
                    == "storybridge upload: cannot reach the collector at '\(endpoint)': connection refused (nothing listens there)\n")
        }
    }

    @Test("a bad option value prints the subcommand's usage, not the root's")
    func badOptionUsage() async throws {
        let result = try await runStorybridge(["test", "x.yaml", "--filter", "("])
        #expect(result.status == 64)
        #expect(result.errors.hasPrefix("Error: --filter '(' is not a regular expression"))
        #expect(result.errors.contains("Usage: storybridge test <scripts> ..."))
        #expect(result.errors.hasSuffix("See 'storybridge test --help' for more information.\n"))
    }
}
