import Foundation
import StoryBridgeTesting
import Testing

/// `storybridge test` given folders, glob patterns and --filter, with real script files.
@Suite("storybridge test: folders, globs and --filter")
struct ScriptSelectionTests {
    /// A folder with two scripts (three tests), the format's schema, a text file and a subfolder
    /// whose script must not run.
    func writeScripts(in folder: URL) throws {
        let demo = demoFolder.path
        let yaml = """
            name: Identity and map
            presentation: \(demo)
            tests:
              - name: identity answers
                steps:
                  - send: getUserInfo
                    expect: {status: Success}
              - name: map answers
                steps:
                  - send: getMap
                    expect: {status: Success}
            """
        try yaml.write(to: folder.appendingPathComponent("a-identity.yaml"), atomically: true, encoding: .utf8)
        let json =
            #"{"presentation": "\#(demo)", "tests": [{"name": "app info", "steps": [{"send": "getAppInfo", "expect": {"status": "Success"}}]}]}"#
        try json.write(to: folder.appendingPathComponent("b-app.json"), atomically: true, encoding: .utf8)
        try #"{"$schema": "https://json-schema.org/draft/2020-12/schema"}"#.write(
            to: folder.appendingPathComponent("schema.json"), atomically: true, encoding: .utf8)
        try "not a script".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let nested = folder.appendingPathComponent("nested")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try "presentation: /nowhere\nsteps:\n  - send: getUserInfo\n".write(
            to: nested.appendingPathComponent("c-never.yaml"), atomically: true, encoding: .utf8)
    }

    /// The report without the timings, which vary.
    func untimed(_ report: String) -> String {
        report.replacing(/\(\d+ steps?, [0-9.]+ s\)/, with: "(…)")
    }

    @Test("a folder runs its scripts sorted, grouped by file, skipping schema.json, other files and subfolders")
    func folder() async throws {
        try await withScratchFolder("sb-cli") { folder in
            try writeScripts(in: folder)
            let result = try await runStorybridge(["test", folder.path])
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            #expect(
                untimed(result.output) == """
                    \(folder.path)/a-identity.yaml (Identity and map): 2 of 2 passed
                      ✔ identity answers (…)
                      ✔ map answers (…)
                    \(folder.path)/b-app.json: 1 of 1 passed
                      ✔ app info (…)
                    3 passed, 0 failed

                    """)
        }
    }

    @Test("a quoted glob pattern is expanded by storybridge; a file named twice runs once")
    func glob() async throws {
        try await withScratchFolder("sb-cli") { folder in
            try writeScripts(in: folder)
            let result = try await runStorybridge(["test", "\(folder.path)/*.yaml", "\(folder.path)/a-identity.yaml"])
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            #expect(result.output.hasPrefix("\(folder.path)/a-identity.yaml (Identity and map): 2 of 2 passed\n"))
            #expect(!result.output.contains("b-app.json"))
            #expect(result.output.hasSuffix("2 passed, 0 failed\n"))
        }
    }

    @Test("--filter runs only the tests whose name matches; a filter that matches nothing fails")
    func filter() async throws {
        try await withScratchFolder("sb-cli") { folder in
            try writeScripts(in: folder)
            let result = try await runStorybridge(["test", folder.path, "--filter", "^(map|app)"])
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            #expect(
                untimed(result.output) == """
                    \(folder.path)/a-identity.yaml (Identity and map): 1 of 1 passed
                      ✔ map answers (…)
                    \(folder.path)/b-app.json: 1 of 1 passed
                      ✔ app info (…)
                    2 passed, 0 failed

                    """)
            let none = try await runStorybridge(["test", folder.path, "--filter", "no such test"])
            #expect(none.status == 1)
            #expect(none.errors == "storybridge test: no test name matches --filter 'no such test' in 2 script(s)\n")
            #expect(none.output == "0 passed, 0 failed\n")
        }
    }
}
