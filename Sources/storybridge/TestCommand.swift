import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeScripts

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run scripted command tests (JSON or YAML) against a host, with optional browser steps.",
        discussion: """
            Each script names a presentation (folder or .zip) and tests made of steps: send a command and \
            expect its answer, expect host events, load another slide, check analytics records, wait, and \
            drive headless Chromium (open, click, type, eval, waitFor, text, waitForCommand). By default each \
            script runs against a host started in this process; --url runs against a running one. \
            The format is described in docs/TESTING.md and Fixtures/scripts/schema.json.

            SCRIPT may be a file, a folder (its .yaml, .yml and .json files, sorted; subfolders are not \
            entered and schema.json is skipped) or a glob pattern such as 'scripts/*.yaml' (expanded here, \
            so quoting it is fine). The report groups the tests by file. Exit status: 0 all passed, 1 a test \
            failed or none ran, 2 a script cannot be read or is not valid.
            """)

    @Argument(help: "Script files (.json, .yaml, .yml), folders of scripts, or glob patterns.")
    var scripts: [String]

    @Option(help: "Run against the host at this URL (e.g. http://127.0.0.1:8080) instead of one started here.")
    var url: String?

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: "The Chromium binary for browser steps (default: $STORYBRIDGE_CHROMIUM, then chromium on PATH).")
    var browser: String?

    @Option(help: "Run only the tests whose name matches this regular expression (e.g. 'deep ?link' or '^base').")
    var filter: String?

    /// Exit status of a script that cannot be read or is not valid.
    static let unusableScript: Int32 = 2

    func validate() throws {
        if let filter {
            do {
                _ = try Regex(filter)
            } catch {
                throw ValidationError("--filter '\(filter)' is not a regular expression: \(error)")
            }
        }
    }

    func run() async throws {
        let files: [String]
        do {
            files = try ScriptFiles.resolve(scripts)
        } catch {
            throw CommandFailure(error.description, status: Self.unusableScript)
        }
        // Every script is read before any runs, so a typo in the last one does not waste a long run.
        var loaded: [TestScript] = []
        for file in files {
            do {
                var script = try TestScript.load(URL(fileURLWithPath: file))
                if let filter {
                    let pattern = try Regex(filter)
                    script.tests = script.tests.filter { $0.name.contains(pattern) }
                }
                loaded.append(script)
            } catch {
                throw CommandFailure(ErrorWording.describe(error), status: Self.unusableScript)
            }
        }
        let runner = ScriptRunner(target: url.map { .running(url: $0) } ?? .inProcess, browserBinary: browser)
        var report = ScriptReport()
        for script in loaded where !script.tests.isEmpty {
            await runner.run(script, into: &report)
        }
        await runner.close()
        if report.results.isEmpty, let filter {
            Terminal.warn("storybridge test: no test name matches --filter '\(filter)' in \(files.count) script(s)")
        }
        Terminal.say(report.text)
        if let junit {
            do {
                try report.junitXML.write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure(SystemFailure("cannot write the JUnit report", junit, error: error).description, status: 2)
            }
        }
        if report.failed > 0 || report.results.isEmpty { throw ExitCode(1) }
    }
}
