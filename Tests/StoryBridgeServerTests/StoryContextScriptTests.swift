import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Story context script steps")
struct StoryContextScriptTests {
    func write(_ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("context.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("the context steps pass (Fixtures/scripts/story-context.yaml)")
    func fixture() async throws {
        let script = repositoryRoot.appendingPathComponent("Fixtures/scripts/story-context.yaml")
        let result = try await runCLI(["test", script.path])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.contains("2 passed, 0 failed"))
    }

    @Test("an integer is not a float, a refusal that does not come fails, and a set needs a value")
    func failures() async throws {
        let script = try write(
            """
            name: Wrong on purpose
            presentation: \(storyContextFixture.path)
            tests:
              - name: float expected
                steps:
                  - expectContext: form.rating.value
                    expect: 3.0
                    timeout: 0.2
              - name: type expected
                steps:
                  - expectContext: form.rating.value
                    contextType: float
                    timeout: 0.2
              - name: refusal expected
                steps:
                  - setContext: form.rating.value
                    value: 5
                    refused: "read-only"
            """)
        let result = try await runCLI(["test", script.path])
        #expect(result.status == 1)
        #expect(result.output.contains("context form.rating.value: expected 3.0, got 3"))
        #expect(result.output.contains("context form.rating.value: expected a value of type float, got integer 3"))
        #expect(result.output.contains(#"setContext form.rating.value: expected a refusal containing "read-only", but it was applied"#))
        #expect(result.output.contains("0 passed, 3 failed"))

        let noValue = try write("presentation: x\ntests:\n  - name: t\n    steps:\n      - setContext: form.a\n")
        let format = try await runCLI(["test", noValue.path])
        #expect(format.status != 0)
        #expect((format.output + format.errors).contains("test 't', step 1: 'setContext' needs a 'value'"))
    }
}
