import Foundation

/// What a script run found.
public struct ScriptReport: Sendable {
    /// One test's outcome.
    public struct TestResult: Sendable {
        public var script: String
        public var name: String
        public var steps: Int
        public var seconds: Double
        /// The failing step (1-based) and what was expected and what came; `nil` when it passed.
        public var failure: (step: Int, label: String, detail: String)?
        public var passed: Bool { failure == nil }
    }

    public var results: [TestResult] = []

    public init() {}

    public var passed: Int { results.filter(\.passed).count }
    public var failed: Int { results.count - passed }

    /// A readable report, ending with the line `N passed, N failed`.
    public var text: String {
        var lines: [String] = []
        var currentScript: String?
        for result in results {
            if result.script != currentScript {
                lines.append(result.script)
                currentScript = result.script
            }
            if let failure = result.failure {
                lines.append(
                    "  ✘ \(result.name): step \(failure.step) (\(failure.label)) failed after \(String(format: "%.2f", result.seconds)) s")
                for line in failure.detail.split(separator: "\n") { lines.append("      \(line)") }
            } else {
                lines.append("  ✔ \(result.name) (\(result.steps) steps, \(String(format: "%.2f", result.seconds)) s)")
            }
        }
        lines.append("\(passed) passed, \(failed) failed")
        return lines.joined(separator: "\n")
    }

    /// The report as JUnit XML, one test suite per script.
    public var junitXML: String {
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<testsuites tests=\"\(results.count)\" failures=\"\(failed)\">"]
        let scripts = results.reduce(into: [String]()) { if !$0.contains($1.script) { $0.append($1.script) } }
        for script in scripts {
            let cases = results.filter { $0.script == script }
            let time = cases.reduce(0) { $0 + $1.seconds }
            xml.append(
                "  <testsuite name=\"\(escape(script))\" tests=\"\(cases.count)\" failures=\"\(cases.filter { !$0.passed }.count)\" time=\"\(String(format: "%.3f", time))\">"
            )
            for result in cases {
                let open =
                    "    <testcase classname=\"\(escape(script))\" name=\"\(escape(result.name))\" time=\"\(String(format: "%.3f", result.seconds))\""
                if let failure = result.failure {
                    xml.append(open + ">")
                    xml.append(
                        "      <failure message=\"step \(failure.step): \(escape(failure.label))\">\(escape(failure.detail))</failure>")
                    xml.append("    </testcase>")
                } else {
                    xml.append(open + "/>")
                }
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
