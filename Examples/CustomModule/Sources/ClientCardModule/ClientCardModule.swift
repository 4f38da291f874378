import Foundation
import StoryBridge
import Synchronization

/// An example of a custom module, as an app developer writes one: two commands that content sends
/// with `StoryCLM.SendCommand`.
///
/// - `getClientCard {clientId}` → `{clientId, name, notes}` (404 for an unknown client);
/// - `saveClientNote {clientId, note}` → `{notes}`, and it tells the page with a `clientCardChanged`
///   event, as a native app would refresh its UI.
public final class ClientCardModule: BridgeModule {
    public let name = "ClientCard"
    public let commands = ["getClientCard", "saveClientNote"]

    /// The module's own state: client cards by id.
    private let cards: Mutex<[Int: (name: String, notes: [String])]>

    public init(clients: [Int: String]) {
        cards = Mutex(clients.mapValues { (name: $0, notes: []) })
    }

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let clientId = try request.int("clientId")
        switch request.command {
        case "getClientCard":
            guard let card = cards.withLock({ $0[clientId] }) else {
                throw BridgeError.notFound("No client \(clientId)")
            }
            return Self.describe(clientId, card)
        default:  // saveClientNote
            let note = try request.string("note")
            guard !note.isEmpty else { throw BridgeError.invalidData(field: "note", reason: "is empty") }
            let updated = cards.withLock { cards -> (name: String, notes: [String])? in
                guard var card = cards[clientId] else { return nil }
                card.notes.append(note)
                cards[clientId] = card
                return card
            }
            guard let updated else { throw BridgeError.notFound("No client \(clientId)") }
            await context.send(HostEvent(name: "clientCardChanged", data: Self.describe(clientId, updated)))
            return ["notes": .array(updated.notes.map(JSONValue.string))]
        }
    }

    static func describe(_ id: Int, _ card: (name: String, notes: [String])) -> JSONValue {
        ["clientId": .int(id), "name": .string(card.name), "notes": .array(card.notes.map(JSONValue.string))]
    }
}
