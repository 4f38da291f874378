/// One command sent by content: `{"Command": ..., "Data": ..., "GUID": ...}`.
///
/// A request without a `GUID` is fire-and-forget and never gets an answer.
public struct BridgeRequest: Sendable, Hashable {
    /// The command name exactly as the content sent it (untrimmed).
    public var command: String
    /// The `Data` member; `{}` when the content left it out.
    public var data: JSONValue
    /// The request's correlation id; `nil` for fire-and-forget calls.
    public var guid: String?

    /// Creates a request.
    public init(command: String, data: JSONValue = .emptyObject, guid: String? = nil) {
        self.command = command
        self.data = data
        self.guid = guid
    }

    /// The request as it travels on the wire.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["Command": .string(command), "Data": data]
        if let guid { members["GUID"] = .string(guid) }
        return .object(members)
    }
}

/// Why a frame from content could not be read as one or more requests.
public enum FrameError: Error, Sendable, Equatable {
    /// The frame is not valid JSON.
    case notJSON(String)
    /// The frame is JSON but neither a request object nor an array of them.
    case notARequest(String)
    /// A request carries a malformed member; `guid` is set when it could still be read, so the
    /// failure can be answered to the waiting callback.
    case invalidMember(name: String, reason: String, guid: String?)

    /// A sentence a developer can act on.
    public var message: String {
        switch self {
        case .notJSON(let detail): return "frame is not valid JSON: \(detail)"
        case .notARequest(let detail): return "frame is not a request: \(detail)"
        case .invalidMember(let name, let reason, _): return "request member '\(name)' \(reason)"
        }
    }
}

extension BridgeRequest {
    /// Reads one request object, checking each member's type.
    public init(json: JSONValue) throws(FrameError) {
        guard case .object(let members) = json else {
            throw .notARequest("expected an object with a 'Command' member, got \(json.typeDescription)")
        }
        try self.init(command: members["Command"], data: members["Data"], guid: members["GUID"])
    }

    /// Checks the three members of a request object (each `nil` when absent).
    init(command commandValue: JSONValue?, data dataValue: JSONValue?, guid guidValue: JSONValue?) throws(FrameError) {
        var guid: String?
        switch guidValue {
        case nil, .null?: guid = nil
        case .string(let value)?: guid = value.isEmpty ? nil : value
        case let other?:
            throw .invalidMember(name: "GUID", reason: "must be a string, got \(other.typeDescription)", guid: nil)
        }
        guard let commandValue else {
            throw .invalidMember(name: "Command", reason: "is missing", guid: guid)
        }
        guard case .string(let command) = commandValue else {
            throw .invalidMember(
                name: "Command", reason: "must be a string, got \(commandValue.typeDescription)", guid: guid)
        }
        let data: JSONValue
        switch dataValue {
        case nil, .null?: data = .emptyObject
        case let value?: data = value
        }
        self.init(command: command, data: data, guid: guid)
    }

    /// Reads a WebSocket text frame: one request object or an array of them (a drained legacy queue).
    ///
    /// Each element of an array is read on its own, so one bad element does not hide the others.
    package static func requests(fromFrame text: String) throws(FrameError) -> [Result<BridgeRequest, FrameError>] {
        switch try frame(text) {
        case .request(let request): return [.success(request)]
        case .queue(let items): return items
        }
    }

    /// What one frame holds: a request object (the usual case, read without any array), or an
    /// array of them, each read on its own.
    package enum Frame: Sendable {
        case request(BridgeRequest)
        case queue([Result<BridgeRequest, FrameError>])
    }

    /// Reads a WebSocket text frame, with the reason when it cannot be read at all.
    package static func read(frame text: String) -> Result<Frame, FrameError> {
        do {
            return .success(try frame(text))
        } catch {
            return .failure(error)
        }
    }

    /// The members of a request object, in the order `frame(_:)` reads them.
    private static let memberNames: [StaticString] = ["Command", "Data", "GUID"]

    /// Reads a WebSocket text frame (see ``requests(fromFrame:)``).
    package static func frame(_ text: String) throws(FrameError) -> Frame {
        // The usual frame is one request object: read its members straight into the request.
        var command: JSONValue?
        var data: JSONValue?
        var guid: JSONValue?
        let wasObject: Bool
        do {
            var text = text
            wasObject = try text.withUTF8 { bytes in
                try JSONParser.forEachMember(
                    ofObjectIn: UnsafeRawBufferPointer(bytes), named: memberNames, maxDepth: JSONValue.defaultMaxDepth,
                    knownValidUTF8: true
                ) { name, value in
                    switch name {
                    case 0: command = value
                    case 1: data = value
                    default: guid = value
                    }
                }
            }
        } catch {
            throw .notJSON(Self.describe(parseError: error))
        }
        if wasObject { return .request(try BridgeRequest(command: command, data: data, guid: guid)) }
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw .notJSON(Self.describe(parseError: error))
        }
        if case .array(let elements) = json {
            return .queue(
                elements.map { element in
                    do throws(FrameError) { return .success(try BridgeRequest(json: element)) } catch {
                        return .failure(error)
                    }
                })
        }
        return .request(try BridgeRequest(json: json))
    }

    private static func describe(parseError error: any Error) -> String {
        if let tooDeep = error as? JSONValue.NestingTooDeep { return tooDeep.description }
        if let syntax = error as? JSONParser.SyntaxError {
            return syntax.tooDeep ? JSONValue.NestingTooDeep(limit: JSONValue.defaultMaxDepth).description : syntax.description
        }
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError { return "\(underlying)" }
            return context.debugDescription
        }
        return "\(error)"
    }
}
