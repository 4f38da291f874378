import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

let storyContextFixture = repositoryRoot.appendingPathComponent("Fixtures/presentations/story-context")

/// The Story context fixture packed as a zip by the test.
func storyContextZip(in folder: URL) throws -> URL {
    try zipFolder(storyContextFixture, to: folder.appendingPathComponent("story-context.zip"))
}

@Suite("storybridge context")
struct StoryContextCommandTests {
    @Test("show, set, delete and reset on an installed presentation: exact types, the scheme's refusals, clear errors")
    func showSetDelete() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let data = folder.appendingPathComponent("data").path
            let install = try await runCLI(["install", try storyContextZip(in: folder).path, "--data-dir", data])
            #expect(install.status == 0, "\(install.errors)")
            func context(_ arguments: String...) async throws -> CLIResult {
                try await runCLI(["context"] + arguments + ["--data-dir", data])
            }

            let whole = try await context("show", "1")
            #expect(whole.status == 0)
            let story = try JSONValue.parse(whole.output)
            #expect(story["form"]?["rating"]?["value"] == 3)
            #expect(story["scheme"]?["pageNotes"] == ["appMutable": false, "contentMutable": true])
            #expect(story["presentation"]?["id"] == 1)

            #expect(try await context("set", "1", "form.rating.value", "4.0").output == "form.rating.value = 4.0\n")
            #expect(try await context("show", "1", "form.rating.value").output == "4.0\n")
            #expect(try await context("set", "1", "form.count", "2").output == "form.count = 2\n")
            #expect(try await context("set", "1", "form.name", "--type", "string", "hello").output == "form.name = \"hello\"\n")
            #expect(try await context("set", "1", "form.ratio", "--type", "float", "3").output == "form.ratio = 3.0\n")
            #expect(try await context("set", "1", "form.flag", "null").output == "form.flag = null\n")
            #expect(try await context("show", "1", "form.flag").output == "null\n")
            #expect(try await context("delete", "1", "form.flag").output == "form.flag = (deleted)\n")
            let gone = try await context("show", "1", "form.flag")
            #expect(gone.status == 1)
            #expect(gone.errors.contains("no value at 'form.flag' in the Story context of presentation 1"))

            let readOnly = try await context("set", "1", "pageNotes.text", "\"x\"")
            #expect(readOnly.status == 65)
            #expect(readOnly.errors.contains("refused: object 'pageNotes' is read-only to the app side (scheme: appMutable false)"))
            let hostObject = try await context("set", "1", "user.id", "\"x\"")
            #expect(hostObject.errors.contains("object 'user' is filled by the host"))
            let notJSON = try await context("set", "1", "form.x", "hello")
            #expect(notJSON.status == 64)
            #expect(notJSON.errors.contains("Quote a string as JSON"))
            let badPath = try await context("set", "1", "form..x", "1")
            #expect(badPath.errors.contains("key path 'form..x' is not valid: a name between dots is empty"))
            let unknown = try await context("show", "9")
            #expect(unknown.status == 65)
            #expect(unknown.errors.contains("no presentation 9 in the library"))

            // Nothing refused was written; a reset forgets the changes.
            let after = try JSONValue.parse(try await context("show", "1").output)
            #expect(after["pageNotes"] == .emptyObject)
            #expect(after["form"]?["count"] == 2)
            #expect(try await context("reset", "1").output.contains("Reset 1 object"))
            #expect(try await context("show", "1", "form.rating.value").output == "3\n")
        }
    }

    @Test("the config's storyContext file declares objects for every presentation; the package's file wins; a missing one is an error")
    func configuredDefinition() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let data = folder.appendingPathComponent("data").path
            #expect(try await runCLI(["install", try storyContextZip(in: folder).path, "--data-dir", data]).status == 0)
            let definition = folder.appendingPathComponent("context.json")
            try
                #"{"scheme": {"extra": {"appMutable": true, "contentMutable": true}, "form": {"appMutable": false, "contentMutable": false}}, "extra": {"on": true}, "form": {"x": 1}}"#
                .write(to: definition, atomically: true, encoding: .utf8)
            let config = folder.appendingPathComponent("config.json")
            try #"{"storyContext": "\#(definition.path)"}"#.write(to: config, atomically: true, encoding: .utf8)
            let shown = try await runCLI(["context", "show", "1", "--data-dir", data, "--config", config.path])
            let story = try JSONValue.parse(shown.output)
            #expect(story["extra"] == ["on": true])
            #expect(story["form"]?["rating"]?["value"] == 3)
            #expect(story["scheme"]?["form"] == ["appMutable": true, "contentMutable": true])

            let missing = folder.appendingPathComponent("missing.json")
            try #"{"storyContext": "\#(folder.path)/nothing.json"}"#.write(to: missing, atomically: true, encoding: .utf8)
            let refused = try await runCLI(["context", "show", "1", "--data-dir", data, "--config", missing.path])
            #expect(refused.status == 65)
            #expect(refused.errors.contains("nothing.json is not valid: no such file (config key storyContext)"))
            let serve = try await runCLI(["serve", storyContextFixture.path, "--port", "0", "--config", missing.path])
            #expect(serve.status == 64)
            #expect(serve.errors.contains("no such file (config key storyContext)"))
        }
    }
}
