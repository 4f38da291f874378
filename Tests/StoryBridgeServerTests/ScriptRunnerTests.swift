import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Scripted command tests")
struct ScriptRunnerTests {
    let scriptsFolder = repositoryRoot.appendingPathComponent("Fixtures/scripts")

    func write(_ name: String, _ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("every script in Fixtures/scripts passes (the CLI, with a JUnit report)")
    func fixtures() async throws {
        let scripts = try FileManager.default.contentsOfDirectory(atPath: scriptsFolder.path)
            .filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".json")) && $0 != "schema.json" }.sorted().map {
                scriptsFolder.appendingPathComponent($0).path
            }
        #expect(scripts.count >= 5)
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("sb-junit-\(UUID().uuidString).xml")
        let result = try await runCLI(["test"] + scripts + ["--junit", junit.path])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.contains(" passed, 0 failed"))
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<testsuites"))
        #expect(!xml.contains("<failure"))
    }

    @Test("a wrong expectation fails with what was expected and what came, and a non-zero exit")
    func failingScript() async throws {
        let script = try write(
            "wrong.yaml",
            """
            name: Wrong on purpose
            presentation: \(demoFolder.path)
            tests:
              - name: user
                steps:
                  - send: getUserInfo
                    expect: {dataSubset: {username: "Somebody Else"}}
                  - send: getAppInfo
            """)
        let junit = script.deletingLastPathComponent().appendingPathComponent("report.xml")
        let result = try await runCLI(["test", script.path, "--junit", junit.path])
        #expect(result.status == 1)
        #expect(result.output.contains("✘ user: step 1 (send getUserInfo) failed"))
        #expect(result.output.contains(#"data.username is "Local User", expected "Somebody Else""#))
        #expect(result.output.contains("0 passed, 1 failed"))
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<failure message="step 1: send getUserInfo">"#))
    }

    @Test("format errors name the file, the test, the step and the key")
    func formatErrors() async throws {
        let unknownKey = try write("typo.yaml", "presentation: x\ntests:\n  - name: t\n    steps:\n      - sned: getUserInfo\n")
        let result = try await runCLI(["test", unknownKey.path])
        #expect(result.status == 2)
        #expect(result.errors.contains("typo.yaml: test 't', step 1: needs exactly one of send,"))
        let badExpect = try write("bad.json", #"{"presentation": "x", "steps": [{"send": "go", "expect": {"dat": {}}}]}"#)
        let second = try await runCLI(["test", badExpect.path])
        #expect(second.errors.contains("unknown key 'expect.dat'"))
    }

    @Test("scripts run against a running host with --url")
    func againstRunningHost() async throws {
        try await withHost { host in
            let script = try write(
                "remote.json",
                #"{"name": "remote", "steps": [{"send": "getUserInfo", "expect": {"status": "Success"}}, {"send": "getMap", "expect": {"dataType": "object"}}]}"#
            )
            var report = ScriptReport()
            let runner = ScriptRunner(target: .running(url: host.baseURL))
            await runner.run(try TestScript.load(script), into: &report)
            await runner.close()
            #expect(report.failed == 0, "\(report.text)")
            #expect(report.passed == 1)
        }
    }

    @Test("browser steps without a Chromium say how to install one")
    func missingBrowser() async throws {
        let script = try write(
            "browser.yaml",
            "presentation: \(demoFolder.path)\nsteps:\n  - browser: open\n")
        let result = try await runCLI(["test", script.path, "--browser", "/nonexistent/chromium"])
        #expect(result.status == 1)
        #expect(result.output.contains("apt-get install chromium"))
    }
}
