import Foundation
import StoryBridge
import Synchronization

/// Writes what people do in the browser as a `storybridge test` script: follows a host's
/// ``InspectorFeed`` and turns each viewer (a browser tab) into a test whose steps are its page
/// loads (`load`) and the bridge commands its pages sent (`send`, with the data they sent; a Veeva
/// library's request as a `veeva` step with what its callback got; an OCE `CLMPlayer` call as an
/// `oce` step with the host's answer), each with its answer as the expectation (`status`, `code`, and `dataLike`: the answer, with ids and
/// times matched by type, see ``VolatileFields``). The file is rewritten after every step, so a
/// host stopped any way leaves the recording up to its last step.
package final class ClickThroughRecorder: Sendable {
    /// A presentation the script serves: its files (folder or zip) and id.
    package struct Deck: Sendable {
        package var path: String
        package var id: Int

        package init(path: String, id: Int) {
            self.path = path
            self.id = id
        }
    }

    private struct Recorded {
        var viewerId: String
        var presentationId: Int
        var slide: String
        var currentPresentationId: Int
        var steps: [JSONValue] = []
    }

    private struct State {
        var tests: [Recorded] = []
        var skipped = 0
    }

    /// The script's file.
    package let file: URL
    /// The presentations served, the first being the script's `presentation`.
    package let decks: [Deck]
    private let state = Mutex(State())

    package init(file: URL, decks: [Deck]) {
        self.file = file
        self.decks = decks
    }

    /// Commands the client sends for itself (prompt answers, reports), which content never sends.
    static func isClientCommand(_ command: String) -> Bool { command.hasPrefix("storybridge.") }

    /// Follows `feed` from now on until the task is cancelled, rewriting the file after each step;
    /// `onFailure` hears of a file that cannot be written (once per failure run).
    package func follow(_ feed: InspectorFeed, onFailure: @Sendable (String) -> Void = { _ in }) async {
        await follow(feed.subscribe(), of: feed, onFailure: onFailure)
    }

    /// Follows a subscription already made to `feed` (so the caller knows it is subscribed).
    package func follow(
        _ subscription: (id: UUID, entries: AsyncStream<String>), of feed: InspectorFeed,
        onFailure: @Sendable (String) -> Void = { _ in }
    ) async {
        let (id, entries) = subscription
        var live = false
        var failing = false
        for await text in entries {
            guard let entry = try? JSONValue.parse(text) else { continue }
            if !live {
                live = entry["type"]?.stringValue == "live"
                continue
            }
            guard handle(entry) else { continue }
            do {
                // Once per step, while pages are served: on the blocking pool.
                try await BlockingIO.run { [self] () throws in try write() }
                failing = false
            } catch {
                if !failing { onFailure("cannot write the recording to '\(file.path)': \(SystemProblem(error))") }
                failing = true
            }
        }
        feed.unsubscribe(id)
    }

    /// Takes one feed entry; returns whether it added a step.
    @discardableResult
    package func handle(_ entry: JSONValue) -> Bool {
        guard let viewerId = entry["viewer"]?.stringValue else { return false }
        switch entry["type"]?.stringValue {
        case "connection":
            guard entry["connected"] == .bool(true), let slide = entry["slide"]?.stringValue,
                let presentationId = entry["presentation"]?.intValue
            else { return false }
            return state.withLock { state in
                guard let index = state.tests.firstIndex(where: { $0.viewerId == viewerId }) else {
                    state.tests.append(
                        Recorded(viewerId: viewerId, presentationId: presentationId, slide: slide, currentPresentationId: presentationId))
                    return true
                }
                var step: [String: JSONValue] = ["load": .string(slide)]
                if presentationId != state.tests[index].presentationId { step["presentationId"] = .int(presentationId) }
                state.tests[index].currentPresentationId = presentationId
                state.tests[index].steps.append(.object(step))
                return true
            }
        case "exchange":
            guard let command = entry["command"]?.stringValue, !Self.isClientCommand(command) else { return false }
            let data = entry["data"] ?? .emptyObject
            if Self.isClipped(data) {
                state.withLock { $0.skipped += 1 }
                return false
            }
            var step: [String: JSONValue] = ["send": .string(command)]
            if data != .emptyObject { step["data"] = data }
            if command == VeevaModule.command, let request = data["request"]?.stringValue, entry["status"]?.stringValue == "Success" {
                // A Veeva library's request: a `veeva` step expecting what its callback got.
                step = ["veeva": .string(request)]
                if let result = entry["response"]?["result"], result != .null, !Self.isClipped(result) {
                    step["expectLike"] = VolatileFields.template(of: result)
                }
            } else if command == OceModule.command, let request = data["request"]?.stringValue,
                entry["status"]?.stringValue == "Success"
            {
                // An OCE CLMPlayer call: an `oce` step expecting the host's answer.
                step = ["oce": .string(request)]
                if let params = data["params"], params != .emptyObject { step["params"] = params }
                if let answer = entry["response"], answer != .null, !Self.isClipped(answer) { step["expect"] = answer }
            } else if entry["guid"] == nil || entry["guid"] == .null {
                step["noAnswer"] = true
            } else if let status = entry["status"]?.stringValue {
                var expect: [String: JSONValue] = ["status": .string(status)]
                if let code = entry["code"]?.intValue { expect["code"] = .int(code) }
                let answer = entry["response"] ?? .null
                if Self.isClipped(answer) {
                    expect["dataType"] = .string(answer["bytes"] != nil ? "object" : JSONExpectation.typeName(answer))
                } else {
                    expect["dataLike"] = VolatileFields.template(of: answer)
                }
                step["expect"] = .object(expect)
            }
            return state.withLock { state in
                guard let index = state.tests.firstIndex(where: { $0.viewerId == viewerId }) else { return false }
                state.tests[index].steps.append(.object(step))
                return true
            }
        default:
            return false
        }
    }

    /// Whether `value` is the feed's preview of data too large to show (``InspectorFeed/clip(_:)``).
    static func isClipped(_ value: JSONValue) -> Bool {
        guard let members = value.objectValue else { return false }
        return Set(members.keys) == ["truncated", "bytes", "preview"] && members["truncated"] == .bool(true)
    }

    /// Requests left out because their data was too large for the feed to keep.
    package var skippedRequests: Int { state.withLock { $0.skipped } }

    /// How many tests (viewers) and steps are recorded.
    package var counts: (tests: Int, steps: Int) {
        state.withLock { state in (state.tests.count, state.tests.reduce(0) { $0 + $1.steps.count }) }
    }

    /// The script as JSON (which is YAML too, so any script file name works).
    package var script: JSONValue {
        let tests = state.withLock { $0.tests }
        var top: [String: JSONValue] = [
            "name": .string("Recorded click-through"),
            "tests": .array(
                tests.enumerated().map { number, test in
                    [
                        "name": .string("viewer \(number + 1) from \(test.slide)"), "slide": .string(test.slide),
                        "presentationId": .int(test.presentationId), "steps": .array(test.steps),
                    ]
                }),
        ]
        if let first = decks.first {
            top["presentation"] = .string(first.path)
            top["presentationId"] = .int(first.id)
        }
        if decks.count > 1 {
            top["presentations"] = .array(decks.dropFirst().map { ["path": .string($0.path), "id": .int($0.id)] })
        }
        return .object(top)
    }

    /// Writes the script to the file (atomically).
    package func write() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(script).write(to: file, options: .atomic)
    }
}
