import Foundation

/// A command answered without Swift, declared in the config file's `commands` section:
///
/// ```json
/// {"commands": [
///   {"name": "getClientCard", "reply": {"id": 7, "name": "ACME"}},
///   {"name": "greet", "template": {"text": "Hello, {{data.name}}", "echo": "{{data}}"}},
///   {"name": "crmLookup", "webhook": {"url": "http://127.0.0.1:9000/hook", "timeoutSeconds": 5}},
///   {"name": "notYet", "reply": {}, "status": 404, "message": "Not in this build"}
/// ]}
/// ```
public struct ConfiguredCommand: Sendable, Hashable, Codable {
    /// Where the answer comes from.
    public enum Source: Sendable, Hashable {
        /// A fixed JSON answer.
        case reply(JSONValue)
        /// JSON whose strings may hold `{{path}}` placeholders filled from the request: `data.a.b`,
        /// `data`, `command`, `guid`, `viewer`, `presentation`, `slide`. A string that is only a
        /// placeholder takes the value with its type; otherwise the value is written as text.
        case template(JSONValue)
        /// An HTTP endpoint the request is POSTed to; its JSON answer becomes the `Data`.
        case webhook(Webhook)
    }

    /// Where a webhook is and how long it may take.
    public struct Webhook: Sendable, Hashable, Codable {
        /// The endpoint's URL.
        public var url: String
        /// How long the endpoint may take before the command fails, in seconds.
        public var timeoutSeconds: Double
        /// Headers sent with the POST.
        public var headers: [String: String]

        /// A webhook; 10 seconds and no extra headers unless given.
        public init(url: String, timeoutSeconds: Double = 10, headers: [String: String] = [:]) {
            self.url = url
            self.timeoutSeconds = timeoutSeconds
            self.headers = headers
        }

        /// Reads `{url, timeoutSeconds?, headers?}`.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            timeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? 10
            headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        }
    }

    /// The command's name, as content sends it.
    public var name: String
    /// Where the answer comes from.
    public var source: Source
    /// `ErrorCode` of a fixed or template answer (200 by default; anything else answers `Failure`).
    public var status: Int
    /// `ErrorMessage` of a fixed or template answer.
    public var message: String

    /// A command answered from `source`, with status 200 unless given.
    public init(name: String, source: Source, status: Int = 200, message: String = "") {
        self.name = name
        self.source = source
        self.status = status
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case name, reply, template, webhook, status, message
    }

    /// Reads one entry of `commands`: a name and exactly one of `reply`, `template` or `webhook`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        guard !name.trimmingSpaces().isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: "a command's name is empty")
        }
        status = try c.decodeIfPresent(Int.self, forKey: .status) ?? 200
        message = try c.decodeIfPresent(String.self, forKey: .message) ?? ""
        let reply = try c.decodeIfPresent(JSONValue.self, forKey: .reply)
        let template = try c.decodeIfPresent(JSONValue.self, forKey: .template)
        let webhook = try c.decodeIfPresent(Webhook.self, forKey: .webhook)
        switch (reply, template, webhook) {
        case (let reply?, nil, nil): source = .reply(reply)
        case (nil, let template?, nil): source = .template(template)
        case (nil, nil, let webhook?):
            guard let url = URL(string: webhook.url), url.scheme == "http" || url.scheme == "https" else {
                throw DecodingError.dataCorruptedError(
                    forKey: .webhook, in: c, debugDescription: "command '\(name)': webhook url must be http(s)")
            }
            source = .webhook(webhook)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: c,
                debugDescription: "command '\(name)' needs exactly one of 'reply', 'template' or 'webhook'")
        }
    }

    /// Writes the entry as the config file holds it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(status, forKey: .status)
        try c.encode(message, forKey: .message)
        switch source {
        case .reply(let value): try c.encode(value, forKey: .reply)
        case .template(let value): try c.encode(value, forKey: .template)
        case .webhook(let hook): try c.encode(hook, forKey: .webhook)
        }
    }
}

/// Fills `{{path}}` placeholders of a template from a request.
enum TemplateFiller {
    static func fill(_ template: JSONValue, values: [String: JSONValue]) -> JSONValue {
        switch template {
        case .string(let text): return fillString(text, values: values)
        case .array(let items): return .array(items.map { fill($0, values: values) })
        case .object(let members): return .object(members.mapValues { fill($0, values: values) })
        default: return template
        }
    }

    static func lookup(_ path: String, in values: [String: JSONValue]) -> JSONValue {
        let parts = path.split(separator: ".").map(String.init)
        guard let first = parts.first, var current = values[first] else { return .null }
        for part in parts.dropFirst() {
            if let index = Int(part), case .array(let items) = current {
                current = index >= 0 && index < items.count ? items[index] : .null
            } else {
                current = current[part] ?? .null
            }
        }
        return current
    }

    static func fillString(_ text: String, values: [String: JSONValue]) -> JSONValue {
        let trimmed = text.trimmingSpaces()
        if trimmed.hasPrefix("{{"), trimmed.hasSuffix("}}"), trimmed.dropFirst(2).dropLast(2).contains("{{") == false,
            trimmed.components(separatedBy: "{{").count == 2
        {
            return lookup(String(trimmed.dropFirst(2).dropLast(2)).trimmingSpaces(), in: values)
        }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex) {
            result += rest[..<open.lowerBound]
            let value = lookup(String(rest[open.upperBound..<close.lowerBound]).trimmingSpaces(), in: values)
            result += value.stringValue ?? (value == .null ? "" : value.jsonString())
            rest = rest[close.upperBound...]
        }
        result += rest
        return .string(result)
    }
}
