/// A message the host pushes to a page on its own initiative: `{"Event": ..., "Data": ...}`.
///
/// Events never carry a `GUID`, so a legacy `StoryCLMHandler` ignores them.
public struct HostEvent: Sendable, Hashable {
    /// The event name, for example `navigate` or `error`.
    public var name: String
    /// The event's payload.
    public var data: JSONValue

    /// Creates an event.
    public init(name: String, data: JSONValue = .emptyObject) {
        self.name = name
        self.data = data
    }

    /// The event as it travels on the wire.
    public var json: JSONValue { .object(["Event": .string(name), "Data": data]) }

    /// Reads an event from its wire form; `nil` when `json` is not an event.
    public init?(json: JSONValue) {
        guard let name = json["Event"]?.stringValue else { return nil }
        self.init(name: name, data: json["Data"] ?? .null)
    }

    /// Tells the page to load `slide` of the presentation; `data` becomes that slide's navigation data.
    public static func navigate(presentationId: Int, slide: String, url: String, data: JSONValue) -> HostEvent {
        HostEvent(
            name: "navigate",
            data: ["presentation": .int(presentationId), "slide": .string(slide), "url": .string(url), "data": data])
    }

    /// Tells the page that something it sent could not be handled (the connection stays open).
    public static func error(_ message: String, code: Int = 400) -> HostEvent {
        HostEvent(name: "error", data: ["message": .string(message), "code": .int(code)])
    }
}
