import Foundation
import StoryBridge

/// What a script run found.
package struct ScriptReport: Sendable {
    /// One test's outcome.
    package struct TestResult: Sendable {
        package var script: String
        /// The script file, as named on the command line (`nil` for a script built in memory).
        package var file: String?
        package var name: String
        package var steps: Int
        package var seconds: Double
        /// The failing step (1-based) and what was expected and what came; `nil` when it passed.
        package var failure: (step: Int, label: String, detail: String)?
        package var passed: Bool { failure == nil }
        /// What the report groups by: the file, else the script's name.
        package var group: String { file ?? script }
    }

    package var results: [TestResult] = []

    package init() {}

    package var passed: Int { results.filter(\.passed).count }
    package var failed: Int { results.count - passed }

    /// The results grouped by script file, in the order the files ran.
    package var groups: [(file: String, results: [TestResult])] {
        var order: [String] = []
        var byFile: [String: [TestResult]] = [:]
        for result in results {
            if byFile[result.group] == nil { order.append(result.group) }
            byFile[result.group, default: []].append(result)
        }
        return order.map { ($0, byFile[$0] ?? []) }
    }

    /// A readable report: a heading per script file with how many of its tests passed, its tests under it,
    /// and the closing line `N passed, N failed`.
    package var text: String {
        var lines: [String] = []
        for (file, results) in groups {
            let failures = results.filter { !$0.passed }.count
            let named = results.first.map { $0.script != URL(fileURLWithPath: file).lastPathComponent && $0.script != file } ?? false
            lines.append(
                "\(file)\(named ? " (\(results[0].script))" : ""): \(results.count - failures) of \(results.count) passed")
            for result in results {
                if let failure = result.failure {
                    lines.append(
                        "  ✘ \(result.name): step \(failure.step) (\(failure.label)) failed after \(String(format: "%.2f", result.seconds)) s"
                    )
                    for line in failure.detail.split(separator: "\n") { lines.append("      \(line)") }
                } else {
                    lines.append("  ✔ \(result.name) (\(result.steps) steps, \(String(format: "%.2f", result.seconds)) s)")
                }
            }
        }
        lines.append("\(passed) passed, \(failed) failed")
        return lines.joined(separator: "\n")
    }

    /// The report as JUnit XML, one test suite per script file.
    package var junitXML: String {
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<testsuites tests=\"\(results.count)\" failures=\"\(failed)\">"]
        for (script, cases) in groups {
            let time = cases.reduce(0) { $0 + $1.seconds }
            xml.append(
                "  <testsuite name=\"\(HTMLText.escape(script))\" tests=\"\(cases.count)\" failures=\"\(cases.filter { !$0.passed }.count)\" time=\"\(String(format: "%.3f", time))\">"
            )
            for result in cases {
                let open =
                    "    <testcase classname=\"\(HTMLText.escape(script))\" name=\"\(HTMLText.escape(result.name))\" time=\"\(String(format: "%.3f", result.seconds))\""
                if let failure = result.failure {
                    xml.append(open + ">")
                    xml.append(
                        "      <failure message=\"step \(failure.step): \(HTMLText.escape(failure.label))\">\(HTMLText.escape(failure.detail))</failure>"
                    )
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
}
