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
            The format is described in the README ("Scripted command tests") and Fixtures/scripts/schema.json.
            """)

    @Argument(help: "Script files (.json, .yaml, .yml).")
    var scripts: [String]

    @Option(help: "Run against the host at this URL (e.g. http://127.0.0.1:8080) instead of one started here.")
    var url: String?

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: "The Chromium binary for browser steps (default: $STORYBRIDGE_CHROMIUM, then chromium on PATH).")
    var browser: String?

    func run() async throws {
        let runner = ScriptRunner(target: url.map { .running(url: $0) } ?? .inProcess, browserBinary: browser)
        var report = ScriptReport()
        for path in scripts {
            let script: TestScript
            do {
                script = try TestScript.load(URL(fileURLWithPath: path))
            } catch {
                Terminal.warn("storybridge test: \(error)")
                runner.close()
                throw ExitCode(2)
            }
            await runner.run(script, into: &report)
        }
        runner.close()
        Terminal.say(report.text)
        if let junit {
            do {
                try report.junitXML.write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                Terminal.warn("storybridge test: cannot write \(junit): \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        if report.failed > 0 || report.results.isEmpty { throw ExitCode(1) }
    }
}
