import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StoryBridge

/// The script steps that set and expect Story context values (`setContext`, `deleteContext`,
/// `expectContext`). They go through the host's `/__storybridge/context` endpoint with the launch
/// token, so they work the same on the in-process host and on a running one (`--url`), change the
/// context as the app side, and reach the open pages like any app-side change.
struct StoryContextSteps {
    let baseURL: String
    let token: String

    /// What the endpoint answered: its status and body.
    struct Answer {
        let status: Int
        let text: String
    }

    /// Sets `value` (read as `type` when given) at `keyPath`; with `refused`, the step expects a
    /// refusal whose reason contains it.
    func set(presentation: Int, keyPath: String, value: JSONValue, type: String?, refused: String?) async throws {
        var body: [String: JSONValue] = ["value": value]
        if let type { body["type"] = .string(type) }
        let answer = try await call(.PUT, presentation: presentation, keyPath: keyPath, body: StoryContextJSON.text(.object(body)))
        try check(answer, action: "setContext \(keyPath)", refused: refused)
    }

    /// Deletes the key at `keyPath`.
    func delete(presentation: Int, keyPath: String, refused: String?) async throws {
        let answer = try await call(.DELETE, presentation: presentation, keyPath: keyPath, body: nil)
        try check(answer, action: "deleteContext \(keyPath)", refused: refused)
    }

    /// Waits until the value at `keyPath` meets `expect` and is of Story type `type` (exactly:
    /// `3` is an integer, `3.0` a float), or is absent when `absent`; fails after `timeout`.
    func expect(
        presentation: Int, keyPath: String, expect: JSONExpectation, type: String?, absent: Bool, timeout: Double
    ) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var problem = ""
        repeat {
            let answer = try await call(.GET, presentation: presentation, keyPath: keyPath, body: nil)
            problem = try mismatch(answer, keyPath: keyPath, expect: expect, type: type, absent: absent) ?? ""
            if problem.isEmpty { return }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        throw ScriptRunner.StepFailure(description: problem)
    }

    private func mismatch(_ answer: Answer, keyPath: String, expect: JSONExpectation, type: String?, absent: Bool) throws -> String? {
        if answer.status == 404, answer.text.hasPrefix("No value at") {
            return absent ? nil : "context \(keyPath): no value there"
        }
        guard answer.status == 200 else {
            throw ScriptRunner.StepFailure(description: "expectContext \(keyPath): \(answer.status) \(answer.text)")
        }
        let reply = try JSONValue.parse(answer.text)
        let value = reply["value"] ?? .null
        let shown = StoryContextJSON.text(value)
        if absent { return "context \(keyPath): expected no value, got \(shown)" }
        if let exact = expect.exact, exact != value {
            return "context \(keyPath): expected \(StoryContextJSON.text(exact)), got \(shown)"
        }
        if let problem = JSONExpectation(subset: expect.subset, type: expect.type, matches: expect.matches, contains: expect.contains)
            .mismatch(value, label: "context \(keyPath)")
        {
            return problem
        }
        if let type, reply["type"]?.stringValue != type {
            return "context \(keyPath): expected a value of type \(type), got \(reply["type"]?.stringValue ?? "?") \(shown)"
        }
        return nil
    }

    private func check(_ answer: Answer, action: String, refused: String?) throws {
        switch (answer.status, refused) {
        case (200, nil):
            return
        case (200, let expected?):
            throw ScriptRunner.StepFailure(description: "\(action): expected a refusal containing \"\(expected)\", but it was applied")
        case (_, let expected?) where answer.text.contains(expected):
            return
        default:
            throw ScriptRunner.StepFailure(description: "\(action): \(answer.status) \(answer.text)")
        }
    }

    private func call(_ method: HTTPMethod, presentation: Int, keyPath: String, body: String?) async throws -> Answer {
        var query = URLComponents()
        query.queryItems = [
            URLQueryItem(name: "presentation", value: String(presentation)), URLQueryItem(name: "keyPath", value: keyPath),
            URLQueryItem(name: "token", value: token),
        ]
        var request = HTTPClientRequest(url: baseURL + "/__storybridge/context?" + (query.percentEncodedQuery ?? ""))
        request.method = method
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        return Answer(status: Int(response.status.code), text: text)
    }
}
