import Foundation
import StoryBridge
import Synchronization

/// An example of a custom module, as an app developer writes one: two commands that content sends
/// with `StoryCLM.SendCommand`.
///
/// - `getClientCard {clientId}` → `{clientId, name, notes}` (404 for an unknown client);
/// - `saveClientNote {clientId, note}` → `{notes}`, and it tells the page with a `clientCardChanged`
///   event, as a native app would refresh its UI.
///
/// `getClientCard` answers from the module's own memory with a synchronous closure
/// (`BridgeCommand.fromMemory`): the host answers it on the connection's own task, the cheapest
/// path. `saveClientNote` awaits (it sends the page an event), so it is an ordered command, with
/// the bridge's deadline. A command that waited on a CRM server would be
/// `.concurrent(.after(.seconds(30)))` instead.
public final class ClientCardModule: BridgeModule {
    /// The module's name, in logs and error messages.
    public let name = "ClientCard"

    /// The module's own state: client cards by id.
    private let cards: Mutex<[Int: Card]>

    struct Card {
        var name: String
        var notes: [String]
    }

    /// A module holding a card for each of `clients` (id → name), with no notes yet.
    public init(clients: [Int: String]) {
        cards = Mutex(clients.mapValues { Card(name: $0, notes: []) })
    }

    /// `getClientCard`, answered from the module's memory, and `saveClientNote`, in the page's order.
    public var commands: CommandTable {
        BridgeCommand.fromMemory("getClientCard", answer: clientCard)
        BridgeCommand("saveClientNote", handler: saveNote)
    }

    private func clientCard(_ request: BridgeRequest, context: BridgeContext) throws -> JSONValue {
        let clientId = try request.int("clientId")
        guard let card = cards.withLock({ $0[clientId] }) else {
            throw BridgeError.notFound("No client \(clientId)")
        }
        return Self.describe(clientId, card)
    }

    private func saveNote(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let clientId = try request.int("clientId")
        let note = try request.string("note")
        guard !note.isEmpty else { throw BridgeError.invalidData(field: "note", reason: "is empty") }
        let updated = cards.withLock { cards -> Card? in
            cards[clientId]?.notes.append(note)
            return cards[clientId]
        }
        guard let updated else { throw BridgeError.notFound("No client \(clientId)") }
        await context.send(HostEvent(name: "clientCardChanged", data: Self.describe(clientId, updated)))
        return ["notes": .array(updated.notes.map(JSONValue.string))]
    }

    static func describe(_ id: Int, _ card: Card) -> JSONValue {
        ["clientId": .int(id), "name": .string(card.name), "notes": .array(card.notes.map(JSONValue.string))]
    }
}
