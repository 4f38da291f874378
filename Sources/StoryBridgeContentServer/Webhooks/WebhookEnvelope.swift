import Foundation
import StoryBridgeFleet

/// A webhook's body (docs/design/FLEET.md §8.3): the vendor's `StoryEvent` envelope,
/// `{"EventId", "EventName", "Username", "Created", "Data"}`, for every event, so that one
/// receiver reads presentation and kiosk events alike. `Username` is always null (installs are CLI
/// actions, kiosk events the hub's); `Created` is the hub's time with milliseconds.
struct WebhookEnvelope<Payload: Encodable & Sendable>: Encodable, Sendable {
    /// The event.
    var event: WebhookEvent
    /// When the hub saw it.
    var created: Date
    /// `Data`.
    var data: Payload

    private enum CodingKeys: String, CodingKey {
        case eventId = "EventId"
        case eventName = "EventName"
        case username = "Username"
        case created = "Created"
        case data = "Data"
    }

    /// Writes the members in the vendor's documented order, `Username` as null.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event.id, forKey: .eventId)
        try container.encode(event.name, forKey: .eventName)
        try container.encodeNil(forKey: .username)
        try container.encode(FleetWire.format(created), forKey: .created)
        try container.encode(data, forKey: .data)
    }

    /// The body's bytes.
    func body() throws -> Data { try Self.encoder.encode(self) }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(FleetWire.format(date))
        }
        return encoder
    }
}
