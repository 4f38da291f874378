import Foundation
import StoryBridge
import Synchronization

/// The commands a presentation sends as `StoryCLM.SendCommand("greet", {name: "Ada"}, callback)`.
final class GreetingModule: BridgeModule {
    let name = "Greeting"
    /// The word `greet` starts with; `setGreeting` changes it.
    private let word = Mutex("Hello")

    var commands: CommandTable {
        // Answered from memory, reading only (policy `.fromMemory(.readsOnly)`).
        BridgeCommand.fromMemory("greet") { request, context in
            let name = try request.string("name")  // required: missing → 400 naming "name"
            let title = try request.optionalString("title")  // nil when absent or null
            let shout = try Self.flag("shout", of: request)
            let slide = context.viewer.latest(\.currentSlide)  // the slide the page shows
            var text = "\(self.word.withLock { $0 }), \([title, name].compactMap { $0 }.joined(separator: " "))"
            if shout { text = text.uppercased() + "!" }
            return ["text": .string(text), "slide": slide.map { .string($0) } ?? .null]
        }
        // Answered from memory, changing state (policy `.fromMemory(.changesState)`).
        BridgeCommand.fromMemory("setGreeting", .changesState) { request, _ in
            let word = try request.nonEmptyString("word")
            self.word.withLock { $0 = word }
            return ["word": .string(word)]
        }
        // Waits: a task of its own, answered 504 if it takes more than 5 seconds.
        BridgeCommand("greetLater", .concurrent(.after(.seconds(5))), handler: greetLater)
    }

    /// Answers after `afterMs` milliseconds, and pushes a `greeted` event to the page first.
    private func greetLater(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let name = try request.string("name")
        let delay = try request.int("afterMs")  // a number, or a numeric string such as "250"
        try await Task.sleep(for: .milliseconds(delay))
        let text = "\(word.withLock { $0 }), \(name)"
        await context.send(HostEvent(name: "greeted", data: ["text": .string(text)]))
        return ["text": .string(text)]
    }

    /// An optional boolean member: absent or null is `false`; another type is a 400 naming it.
    private static func flag(_ field: String, of request: BridgeRequest) throws(BridgeError) -> Bool {
        switch try request.member(field) {
        case nil, .null?: return false
        case .bool(let value)?: return value
        case let other?: throw .invalidData(field: field, reason: "must be a boolean, got \(other.typeDescription)")
        }
    }
}
