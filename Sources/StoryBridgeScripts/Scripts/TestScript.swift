import Foundation
import StoryBridge
import Yams

/// A scripted test file (JSON or YAML): where to run, and tests made of steps that act as a viewer
/// (commands, events, page loads, analytics) and, optionally, as a real browser. The format is
/// documented in docs/TESTING.md ("Scripted command tests") and `Fixtures/scripts/schema.json`.
package struct TestScript: Sendable {
    /// What a step does.
    package enum Step: Sendable {
        case send(command: String, data: JSONValue, expect: ResponseExpectation?, noAnswer: Bool, timeout: Double)
        case expectEvent(name: String, data: JSONExpectation, timeout: Double)
        case load(slide: String, presentationId: Int?)
        case wait(seconds: Double)
        case expectRecord(RecordExpectation)
        case browserOpen(slide: String?)
        case click(selector: String)
        case type(selector: String, text: String)
        case eval(script: String, expect: JSONExpectation)
        case waitFor(script: String, timeout: Double)
        case text(selector: String, expect: JSONExpectation, timeout: Double)
        case waitForCommand(command: String, timeout: Double)
        /// Sets a Story context value through the host's endpoint, as the app side.
        case setContext(StoryContextChange)
        /// Waits until a Story context value meets the expectation.
        case expectContext(StoryContextExpectation)

        /// A short label for reports.
        package var label: String {
            switch self {
            case .send(let command, _, _, _, _): return "send \(command)"
            case .expectEvent(let name, _, _): return "expectEvent \(name)"
            case .load(let slide, _): return "load \(slide)"
            case .wait(let seconds): return "wait \(seconds)s"
            case .expectRecord: return "expectRecord"
            case .browserOpen(let slide): return "browser open \(slide ?? "")"
            case .click(let selector): return "click \(selector)"
            case .type(let selector, _): return "type \(selector)"
            case .eval(let script, _): return "eval \(script.prefix(40))"
            case .waitFor(let script, _): return "waitFor \(script.prefix(40))"
            case .text(let selector, _, _): return "text \(selector)"
            case .waitForCommand(let command, _): return "waitForCommand \(command)"
            case .setContext(let change): return "\(change.value == nil ? "deleteContext" : "setContext") \(change.keyPath)"
            case .expectContext(let expected): return "expectContext \(expected.keyPath)"
            }
        }
    }

    /// What an answer must look like.
    package struct ResponseExpectation: Sendable {
        package var status: String?
        package var code: Int?
        package var message: JSONExpectation
        package var data: JSONExpectation
    }

    /// What the analytics of the scripted viewer's session must hold.
    package struct RecordExpectation: Sendable {
        var sessionState: Int?
        package var complete: Bool?
        package var slideViews: [String]?
        package var mediaViews: [String]?
        package var customEvents: [String: String]?
    }

    /// A `setContext` (`value` set) or `deleteContext` (`value` nil) step.
    package struct StoryContextChange: Sendable {
        package var keyPath: String
        package var value: JSONValue?
        /// The Story type to read `value` as (`contextType`).
        package var type: String?
        /// When set, the step expects a refusal whose reason contains this.
        package var refused: String?
        package var presentationId: Int?
    }

    /// An `expectContext` step.
    package struct StoryContextExpectation: Sendable {
        package var keyPath: String
        package var expect: JSONExpectation
        /// The Story type the value must have (`contextType`: integer and float are told apart).
        package var type: String?
        /// The key must not be there (`absent: true`).
        package var absent: Bool
        package var presentationId: Int?
        package var timeout: Double
    }

    /// One named test.
    package struct Test: Sendable {
        package var name: String
        package var presentationId: Int
        /// The slide the test opens; `nil`: the presentation's entry slide (`index.html` for
        /// StoryCLM, the first key message or sequence slide for Veeva and OCE).
        package var slide: String?
        package var steps: [Step]
    }

    package var name: String
    /// The presentation folder or .zip (resolved against the script's folder); `nil` with `--url`.
    package var presentation: URL?
    package var presentationId: Int
    /// More presentations for `open` (folder or zip, with ids).
    var extraPresentations: [(URL, Int)]
    package var configuration: HostConfiguration
    package var policy: ViewerPolicy
    package var tests: [Test]
    /// The file the script was read from, as it was named (`nil` for a script parsed from JSON in memory).
    package var file: String?

    /// Why a script cannot be used, naming the place.
    struct FormatError: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    static let stepKinds = [
        "send", "expectEvent", "load", "wait", "expectRecord", "browser", "click", "type", "eval", "waitFor", "text",
        "waitForCommand", "setContext", "deleteContext", "expectContext", "veeva", "oce",
    ]

    /// Reads a script file (`.json`, `.yaml` or `.yml`).
    package static func load(_ file: URL) throws -> TestScript {
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw FormatError(description: SystemFailure("cannot read", file.relativePath, error: error).description)
        }
        let json: JSONValue
        do {
            if file.pathExtension.lowercased() == "json" {
                json = try JSONValue.parse(text)
            } else {
                json = try Self.yamlToJSON(try Yams.load(yaml: text))
            }
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError(description: "\(file.lastPathComponent) is not valid \(file.pathExtension.uppercased()): \(error)")
        }
        var script = try parse(json, baseFolder: file.deletingLastPathComponent(), fileName: file.lastPathComponent)
        script.file = file.relativePath
        return script
    }

    static func yamlToJSON(_ value: Any?) throws -> JSONValue {
        switch value {
        case nil: return .null
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(value)
        case let value as Double: return .double(value)
        case let value as String: return .string(value)
        case let value as [Any?]: return .array(try value.map(yamlToJSON))
        case let value as [String: Any?]: return .object(try value.mapValues(yamlToJSON))
        case let value as [AnyHashable: Any?]:
            var members: [String: JSONValue] = [:]
            for (key, item) in value { members["\(key)"] = try yamlToJSON(item) }
            return .object(members)
        default:
            if value is NSNull { return .null }
            throw FormatError(description: "unsupported YAML value \(String(describing: value))")
        }
    }

    /// Reads a script from its JSON form.
    package static func parse(_ json: JSONValue, baseFolder: URL, fileName: String) throws -> TestScript {
        guard case .object(let top) = json else { throw FormatError(description: "\(fileName): the script must be an object") }
        let known: Set<String> = [
            "name", "presentation", "presentationId", "presentations", "config", "closeAnswer", "restoreAnswer", "tests",
            "steps", "slide",
        ]
        for key in top.keys where !known.contains(key) {
            throw FormatError(description: "\(fileName): unknown key '\(key)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        var configuration = HostConfiguration()
        if let config = top["config"] {
            do {
                configuration = try JSONDecoder().decode(HostConfiguration.self, from: Data(config.jsonString().utf8))
            } catch let error as DecodingError {
                throw FormatError(description: "\(fileName): config: \(ConfigurationError.describe(error))")
            }
        }
        var policy = ViewerPolicy(closeDecision: .save, restoreDecision: .new)
        if let close = top["closeAnswer"]?.stringValue {
            guard let decision = ViewerPolicy.CloseDecision(rawValue: close) else {
                throw FormatError(description: "\(fileName): closeAnswer must be ask, save, discard or cancel")
            }
            policy.closeDecision = decision
        }
        if let restore = top["restoreAnswer"]?.stringValue {
            guard let decision = ViewerPolicy.RestoreDecision(rawValue: restore) else {
                throw FormatError(description: "\(fileName): restoreAnswer must be ask, restore or new")
            }
            policy.restoreDecision = decision
        }
        let presentationId = top["presentationId"]?.intValue ?? 1
        var extras: [(URL, Int)] = []
        for (index, item) in (top["presentations"]?.arrayValue ?? []).enumerated() {
            guard let path = item["path"]?.stringValue, let id = item["id"]?.intValue else {
                throw FormatError(description: "\(fileName): presentations[\(index)] needs 'path' and 'id'")
            }
            extras.append((URL(fileURLWithPath: path, relativeTo: baseFolder).standardizedFileURL, id))
        }
        var tests: [Test] = []
        let defaultSlide = top["slide"]?.stringValue
        if let list = top["tests"]?.arrayValue {
            for (index, item) in list.enumerated() {
                let name = item["name"]?.stringValue ?? "test \(index + 1)"
                guard let steps = item["steps"]?.arrayValue else {
                    throw FormatError(description: "\(fileName): test '\(name)' has no 'steps' list")
                }
                tests.append(
                    Test(
                        name: name, presentationId: item["presentationId"]?.intValue ?? presentationId,
                        slide: item["slide"]?.stringValue ?? defaultSlide,
                        steps: try steps.enumerated().map { try parseStep($1, where: "\(fileName): test '\(name)', step \($0 + 1)") }))
            }
        } else if let steps = top["steps"]?.arrayValue {
            let name = top["name"]?.stringValue ?? fileName
            tests.append(
                Test(
                    name: name, presentationId: presentationId, slide: defaultSlide,
                    steps: try steps.enumerated().map { try parseStep($1, where: "\(fileName): step \($0 + 1)") }))
        } else {
            throw FormatError(description: "\(fileName): needs a 'tests' list (or a 'steps' list)")
        }
        return TestScript(
            name: top["name"]?.stringValue ?? fileName,
            presentation: top["presentation"]?.stringValue.map {
                URL(fileURLWithPath: $0, relativeTo: baseFolder).standardizedFileURL
            },
            presentationId: presentationId, extraPresentations: extras, configuration: configuration, policy: policy,
            tests: tests)
    }

    /// Reads the expectation kept under `prefix` (`data`, `message`, `expect`): the plain key is an
    /// exact value; `<prefix>Subset`, `<prefix>Type`, `<prefix>Matches`, `<prefix>Contains` and
    /// `<prefix>Like` (a template with `"$type:NAME"` markers) are the other forms.
    static func expectation(_ members: [String: JSONValue], prefix: String) -> JSONExpectation {
        JSONExpectation(
            exact: members[prefix], subset: members[prefix + "Subset"], type: members[prefix + "Type"]?.stringValue,
            matches: members[prefix + "Matches"]?.stringValue, contains: members[prefix + "Contains"]?.stringValue,
            like: members[prefix + "Like"])
    }

    static let expectationSuffixes = ["", "Subset", "Type", "Matches", "Contains", "Like"]

    static func parseStep(_ json: JSONValue, where place: String) throws -> Step {
        guard case .object(let step) = json else { throw FormatError(description: "\(place): a step must be an object") }
        var kinds = step.keys.filter(stepKinds.contains)
        // A `type` step carries its `text` too.
        if Set(kinds) == ["type", "text"] { kinds = ["type"] }
        guard kinds.count == 1, let kind = kinds.first else {
            throw FormatError(
                description:
                    "\(place): needs exactly one of \(stepKinds.joined(separator: ", ")); got \(step.keys.sorted().joined(separator: ", "))"
            )
        }
        let timeout = step["timeout"]?.doubleValue ?? 10
        func string(_ key: String) throws -> String {
            guard let value = step[key]?.stringValue else { throw FormatError(description: "\(place): '\(key)' must be a string") }
            return value
        }
        switch kind {
        case "send":
            var expect: ResponseExpectation?
            if let raw = step["expect"] {
                guard case .object(let members) = raw else { throw FormatError(description: "\(place): 'expect' must be an object") }
                let allowed = Set(["status", "code"] + expectationSuffixes.flatMap { ["data" + $0, "message" + $0] })
                for key in members.keys where !allowed.contains(key) {
                    throw FormatError(
                        description: "\(place): unknown key 'expect.\(key)' (known: \(allowed.sorted().joined(separator: ", ")))")
                }
                expect = ResponseExpectation(
                    status: members["status"]?.stringValue, code: members["code"]?.intValue,
                    message: expectation(members, prefix: "message"), data: expectation(members, prefix: "data"))
            }
            return .send(
                command: try string("send"), data: step["data"] ?? .emptyObject, expect: expect,
                noAnswer: step["noAnswer"] == .bool(true), timeout: timeout)
        case "veeva":
            // A request string of the Veeva libraries (`getDataForObjectV2(Account),fieldName(Id),cb(result)`),
            // sent as the Veeva adapter sends it. What its callback gets: `expect` (a subset) or
            // `expectLike` (the whole answer, `"$type:NAME"` markers allowed, as recorded).
            let request = try string("veeva")
            var expect: ResponseExpectation?
            if let raw = step["expect"] {
                expect = ResponseExpectation(
                    status: "Success", code: nil, message: JSONExpectation(), data: JSONExpectation(subset: ["result": raw]))
            } else if let raw = step["expectLike"] {
                let callback = (try? VeevaRequest(request))?.callback.map(JSONValue.string) ?? .null
                expect = ResponseExpectation(
                    status: "Success", code: nil, message: JSONExpectation(),
                    data: JSONExpectation(like: ["callback": callback, "result": raw]))
            }
            return .send(
                command: VeevaModule.command, data: ["request": .string(request)], expect: expect, noAnswer: false, timeout: timeout)
        case "oce":
            // A CLMPlayer call of an OCE deck (`oce: gotoSlide`, `params: {sequenceId, slideName}`),
            // sent as the OCE adapter sends it. `expect`: a subset of the host's answer
            // (`{handled: true}`, `{alert: …}` or `{refused: …}`); without it, `{handled: true}`.
            let request = try string("oce")
            let params = step["params"] ?? .emptyObject
            guard params.objectValue != nil else { throw FormatError(description: "\(place): 'params' must be an object") }
            let expect = ResponseExpectation(
                status: "Success", code: nil, message: JSONExpectation(),
                data: JSONExpectation(subset: step["expect"] ?? ["handled": true]))
            return .send(
                command: OceModule.command, data: ["request": .string(request), "params": params, "transport": "script"],
                expect: expect, noAnswer: false, timeout: timeout)
        case "expectEvent":
            return .expectEvent(name: try string("expectEvent"), data: JSONExpectation(subset: step["data"]), timeout: timeout)
        case "load":
            return .load(slide: try string("load"), presentationId: step["presentationId"]?.intValue)
        case "wait":
            guard let seconds = step["wait"]?.doubleValue else { throw FormatError(description: "\(place): 'wait' must be seconds") }
            return .wait(seconds: seconds)
        case "expectRecord":
            guard case .object(let members)? = step["expectRecord"] else {
                throw FormatError(description: "\(place): 'expectRecord' must be an object")
            }
            return .expectRecord(
                RecordExpectation(
                    sessionState: members["sessionState"]?.intValue,
                    complete: members["complete"].flatMap { if case .bool(let b) = $0 { return b } else { return nil } },
                    slideViews: members["slideViews"]?.arrayValue?.compactMap(\.stringValue),
                    mediaViews: members["mediaViews"]?.arrayValue?.compactMap(\.stringValue),
                    customEvents: members["customEvents"]?.objectValue?.compactMapValues(\.stringValue)))
        case "browser":
            if step["browser"]?.stringValue == "open" { return .browserOpen(slide: step["slide"]?.stringValue) }
            if let slide = step["browser"]?["open"]?.stringValue { return .browserOpen(slide: slide) }
            throw FormatError(description: "\(place): 'browser' must be \"open\" (with an optional 'slide')")
        case "click":
            return .click(selector: try string("click"))
        case "type":
            return .type(selector: try string("type"), text: try string("text"))
        case "eval":
            return .eval(script: try string("eval"), expect: expectation(step, prefix: "expect"))
        case "waitFor":
            return .waitFor(script: try string("waitFor"), timeout: timeout)
        case "text":
            return .text(selector: try string("text"), expect: expectation(step, prefix: "expect"), timeout: timeout)
        case "setContext", "deleteContext":
            let deleting = kind == "deleteContext"
            guard deleting || step["value"] != nil else { throw FormatError(description: "\(place): 'setContext' needs a 'value'") }
            return .setContext(
                StoryContextChange(
                    keyPath: try string(kind), value: deleting ? nil : step["value"], type: step["contextType"]?.stringValue,
                    refused: step["refused"]?.stringValue, presentationId: step["presentationId"]?.intValue))
        case "expectContext":
            return .expectContext(
                StoryContextExpectation(
                    keyPath: try string("expectContext"), expect: expectation(step, prefix: "expect"),
                    type: step["contextType"]?.stringValue, absent: step["absent"] == .bool(true),
                    presentationId: step["presentationId"]?.intValue, timeout: timeout))
        default:
            return .waitForCommand(command: try string("waitForCommand"), timeout: timeout)
        }
    }
}
